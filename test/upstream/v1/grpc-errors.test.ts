import { Metadata, status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { refusedTheGateway } from '../../../src/surfaces/v025/recovery/turn-resubscribe.js';
import { fromGrpcError } from '../../../src/upstream/v1/grpc-errors.js';

const serviceError = (code: status, details: string): Error => Object.assign(new Error(details), { code, details, metadata: new Metadata() });

describe('fromGrpcError, for a status that refuses the gateway credentials', () => {
  it.each([
    [status.UNAUTHENTICATED, 401],
    [status.PERMISSION_DENIED, 403],
  ])('status %i is refused credentials, as HTTP %i is on the other bindings', (code, httpStatus) => {
    const error = fromGrpcError(serviceError(code, 'bad token s3cret'), ['s3cret']);
    expect(error).toMatchObject({
      code: -32603,
      message: 'Upstream agent is unavailable',
      agentHttpStatus: httpStatus,
      upstreamFault: 'credentials',
    });
    // The facade's turn recovery ends at once on it, rather than asking an agent that refuses it again.
    expect(refusedTheGateway(error)).toBe(true);
    // The agent's words are the operator's (the cause), scrubbed.
    expect((error.cause as Error).message).toBe(
      "The upstream agent refused the gateway's credentials (gRPC " + status[code] + '; upstream.auth): bad token [redacted]',
    );
  });
});

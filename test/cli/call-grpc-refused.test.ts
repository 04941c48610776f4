/**
 * `a2a-bridge call` on a gRPC agent that refuses the credentials: the agent said so with a gRPC status, so the
 * operator reads that status (UNAUTHENTICATED, PERMISSION_DENIED), not an HTTP 401/403 the agent never sent,
 * and the options that reach a gRPC call (--token, --api-key: sent as metadata; --header is not).
 */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGrpcAgent, type FakeGrpcAgent } from '../e2e/grpc/fake-grpc-agent.js';
import { inProcess } from './in-process.js';

let agent: FakeGrpcAgent;
beforeAll(async () => {
  agent = await startFakeGrpcAgent();
});
afterAll(async () => {
  await agent?.close();
});

describe('a2a-bridge call on a gRPC agent refusing the credentials', { timeout: 30_000 }, () => {
  it.each([
    [status.UNAUTHENTICATED, 'UNAUTHENTICATED'],
    [status.PERMISSION_DENIED, 'PERMISSION_DENIED'],
  ])('status %i: told as gRPC %s, exit 4', async (code, name) => {
    agent.behave = { kind: 'fail', code, details: 'token rejected' };
    for (const stream of ['--stream', '--no-stream']) {
      const run = await inProcess(['call', agent.url, 'hi', stream, '--token', 'wrong']);
      expect(run.code, stream).toBe(4);
      expect(run.stderr, stream).toBe(
        `a2a-bridge: the agent refused the call (gRPC ${name}): give it credentials with --token or --api-key (sent as gRPC metadata)\n`,
      );
    }
    // No metadata sent (--header goes on the card's request only): the agent asks for credentials, none were refused.
    for (const given of [[], ['--header', 'X-Tenant: a']]) {
      const run = await inProcess(['call', agent.url, 'hi', ...given]);
      expect(run.code, given.join(' ')).toBe(4);
      expect(run.stderr, given.join(' ')).toBe(
        `a2a-bridge: the agent needs credentials for the call (gRPC ${name}): give them with --token or --api-key (sent as gRPC metadata)\n`,
      );
    }
  });
});

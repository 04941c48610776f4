/**
 * The gRPC binding's error mapping: every A2A error code becomes the gRPC status of the spec's table
 * (A2A 1.0.1, where -32003, -32004 and -32009 are FAILED_PRECONDITION), with a google.rpc.Status in
 * `grpc-status-details-bin` carrying google.rpc.ErrorInfo (reason, domain, metadata) for the errors
 * that have a reason; the official client reads each one back as the matching error class.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN, decodeErrorInfo, decodeStatus, fromGrpcError } from 'a2a-sdk-1/errors/grpc';
import { describe, expect, it } from 'vitest';
import { A2AError, ERROR_DOMAIN } from '../../../src/model/index.js';
import { toGrpcStatus } from '../../../src/surfaces/grpc/status.js';

const TABLE: Array<[number, keyof typeof status, string | undefined, string | undefined]> = [
  // code, gRPC status, ErrorInfo reason, the SDK client's error class
  [-32700, 'INVALID_ARGUMENT', undefined, undefined],
  [-32600, 'INVALID_ARGUMENT', undefined, undefined],
  [-32601, 'NOT_FOUND', undefined, undefined],
  [-32602, 'INVALID_ARGUMENT', 'INVALID_PARAMS', 'GrpcRequestMalformedError'],
  [-32603, 'INTERNAL', undefined, undefined],
  [-32001, 'NOT_FOUND', 'TASK_NOT_FOUND', 'GrpcTaskNotFoundError'],
  [-32002, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE', 'GrpcTaskNotCancelableError'],
  [-32003, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED', 'GrpcPushNotificationNotSupportedError'],
  [-32004, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION', 'GrpcUnsupportedOperationError'],
  [-32005, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED', 'GrpcContentTypeNotSupportedError'],
  [-32006, 'INTERNAL', 'INVALID_AGENT_RESPONSE', 'GrpcInvalidAgentResponseError'],
  [-32007, 'FAILED_PRECONDITION', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'GrpcExtendedAgentCardNotConfiguredError'],
  [-32008, 'FAILED_PRECONDITION', 'EXTENSION_SUPPORT_REQUIRED', 'GrpcExtensionSupportRequiredError'],
  [-32009, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED', 'GrpcVersionNotSupportedError'],
];

describe('A2A errors as gRPC statuses', () => {
  it.each(TABLE)('%i → %s (ErrorInfo reason %s)', (code, statusName, reason, sdkClass) => {
    const error = new A2AError(code, `message for ${code}`, { metadata: { taskId: 't-1' } });
    const answer = toGrpcStatus(error);
    expect(answer.code).toBe(status[statusName]);
    expect(answer.details).toBe(`message for ${code}`);
    const [bin] = answer.metadata?.get(GRPC_STATUS_DETAILS_BIN) ?? [];
    if (!reason) {
      expect(bin).toBeUndefined();
      return;
    }
    const decoded = decodeStatus(bin as Buffer);
    expect(decoded).toMatchObject({ code: status[statusName], message: `message for ${code}` });
    expect(decoded.details).toHaveLength(1);
    expect(decoded.details[0]?.typeUrl).toBe('type.googleapis.com/google.rpc.ErrorInfo');
    expect(decodeErrorInfo(decoded.details[0]!.value)).toEqual({ reason, domain: ERROR_DOMAIN, metadata: { taskId: 't-1' } });

    // What the official client makes of it.
    const clientError = fromGrpcError(
      Object.assign(new Error(answer.details), { code: answer.code, details: answer.details, metadata: answer.metadata ?? new Metadata() }),
      'getTask',
    );
    expect(clientError.constructor.name).toBe(sdkClass);
    expect(clientError).toMatchObject({ status: status[statusName], reason });
  });

  it('anything that is not an A2AError is INTERNAL with a safe message, no stack and no details', () => {
    const answer = toGrpcStatus(new Error('ENOENT: /home/someone/secret.txt'));
    expect(answer).toMatchObject({ code: status.INTERNAL, details: 'Internal error' });
    expect(answer.metadata?.get(GRPC_STATUS_DETAILS_BIN)).toEqual([]);
  });
});

describe('a long message in the trailers', () => {
  it('is cut to 1,500 bytes of UTF-8 at a character, in the status and its details alike, so C-core clients (8 KiB of metadata) can read it', () => {
    const reason = `部署失败：${'资源创建失败😀'.repeat(150)}`;
    const answer = toGrpcStatus(A2AError.taskNotFound('t-1', reason));
    expect(Buffer.byteLength(answer.details)).toBeLessThanOrEqual(1_500);
    expect(answer.details.endsWith('...')).toBe(true);
    expect(reason.startsWith(answer.details.slice(0, -3))).toBe(true);
    expect(answer.details).not.toMatch(/\p{Cs}/u);
    const details = decodeStatus(answer.metadata.get(GRPC_STATUS_DETAILS_BIN)[0] as Buffer);
    expect(details.message).toBe(answer.details);
    expect(toGrpcStatus(A2AError.taskNotFound('t-1', 'short')).details).toBe('short');
  });
});

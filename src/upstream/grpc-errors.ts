import { status, type ServiceError } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN, decodeErrorInfo, decodeStatus } from '@a2a-js/sdk/errors/grpc';
import { A2AError, ErrorCode, GATEWAY_FAILURES, codeInfo, type ErrorCode as Code } from '../model/index.js';
import { fromTransportError, sanitizeUpstreamText, type AbortSources } from './upstream-errors.js';

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/** ErrorInfo reason → A2A code, from the one error table (src/model/errors.ts). */
const CODE_BY_REASON = new Map<string, Code>(
  Object.values(ErrorCode).flatMap((code) => {
    const reason = codeInfo(code).reason;
    return reason ? [[reason, code] as const] : [];
  }),
);

/** For a status without ErrorInfo (a server that is not A2A-aware answered): the nearest A2A code. */
const CODE_BY_STATUS: Partial<Record<status, Code>> = {
  [status.INVALID_ARGUMENT]: ErrorCode.InvalidParams,
  [status.NOT_FOUND]: ErrorCode.TaskNotFound,
  [status.UNIMPLEMENTED]: ErrorCode.UnsupportedOperation,
};

const isServiceError = (error: unknown): error is ServiceError => error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number';

/** The ErrorInfo of a status's `grpc-status-details-bin`, when it has one that decodes. */
function errorInfoOf(error: ServiceError): { reason: string; metadata: Record<string, string> } | undefined {
  const [bin] = error.metadata?.get(GRPC_STATUS_DETAILS_BIN) ?? [];
  if (!Buffer.isBuffer(bin)) return undefined;
  try {
    const detail = decodeStatus(bin).details.find((any) => any.typeUrl === ERROR_INFO_TYPE);
    return detail ? decodeErrorInfo(detail.value) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What an upstream gRPC call failed with, as a scrubbed A2AError: the code named by its ErrorInfo
 * reason, else the nearest one for its status; the caller's own abort, the gateway's timeout and an
 * unreachable agent read as they do on the JSON-RPC client.
 */
export function fromGrpcError(error: unknown, secrets: readonly string[], aborts: AbortSources = {}): A2AError {
  if (!isServiceError(error) || aborts.timedOut || aborts.caller?.aborted) return fromTransportError(error, aborts);
  if (error.code === status.DEADLINE_EXCEEDED) return A2AError.internal(GATEWAY_FAILURES.upstreamTimedOut);
  if (error.code === status.UNAVAILABLE || error.code === status.CANCELLED) return A2AError.internal(GATEWAY_FAILURES.upstreamUnavailable);
  const message = sanitizeUpstreamText(error.details ?? '', secrets) || 'The upstream agent reported an error';
  const info = errorInfoOf(error);
  const code = (info && CODE_BY_REASON.get(info.reason)) ?? CODE_BY_STATUS[error.code] ?? ErrorCode.Internal;
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(info?.metadata ?? {})) metadata[key] = sanitizeUpstreamText(value, secrets);
  return new A2AError(code, message, { metadata });
}

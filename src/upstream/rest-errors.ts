import type { MappingProfile } from '../mappings/index.js';
import { A2AError, ErrorCode, codeInfo } from '../model/index.js';
import { fromJsonRpcError, sanitizeUpstreamText } from './upstream-errors.js';
import { fromV025JsonRpcError } from './v025-errors.js';
import { isRecord } from '../model/json.js';

/**
 * What a 0.3 HTTP+JSON agent answered instead of a result → a scrubbed A2AError. 0.3 fixed no error
 * body for this binding, so every shape seen in the wild is read: a2a-js's `{code, message, data?}`
 * with JSON-RPC codes, a google.rpc.Status `{error: {code, status, message, details}}` (1.0 servers
 * and later SDKs), a bare `{message}` (a2a-python 0.3) or RFC 9457 problem details; without a code,
 * the HTTP status decides.
 */

export interface RestErrorContext {
  /** Secret values scrubbed from the agent's text. */
  secrets: readonly string[];
  /**
   * A 0.3 agent's JSON-RPC-style codes are mapped by this profile (mappings/errors.json); without one
   * (a 1.0 agent) such a body carries 1.0 codes.
   */
  profile?: MappingProfile;
  /** What a 404 means on this route: the task (or push config) is unknown, or the route itself is. */
  notFound(): A2AError;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** google.rpc.ErrorInfo reason → A2A code, from the 1.0 error table. */
const CODE_BY_REASON: ReadonlyMap<string, number> = new Map(
  Object.values(ErrorCode).flatMap((code): Array<[string, number]> => {
    const reason = codeInfo(code).reason;
    return reason ? [[reason, code]] : [];
  }),
);

function reasonCode(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (isRecord(detail) && typeof detail.reason === 'string' && CODE_BY_REASON.has(detail.reason)) return CODE_BY_REASON.get(detail.reason);
  }
  return undefined;
}

/** The A2AError an HTTP status stands for when the body names no code. */
function fromHttpStatus(status: number, message: string, context: RestErrorContext): A2AError {
  const said = message || undefined;
  switch (status) {
    case 404:
      return context.notFound();
    case 400:
    case 422:
      return A2AError.invalidParams(said ?? 'The upstream agent rejected the request');
    case 401:
    case 403:
      return new A2AError(ErrorCode.Internal, `The upstream agent refused the gateway's credentials (HTTP ${status})`, { agentHttpStatus: status });
    case 405:
    case 501:
      return A2AError.unsupportedOperation(said ?? 'The upstream agent does not support this operation');
    case 415:
      return A2AError.contentTypeNotSupported(said ?? 'The upstream agent does not accept this content type');
    default:
      return new A2AError(ErrorCode.Internal, said ?? `The upstream agent answered HTTP ${status}`, { agentHttpStatus: status });
  }
}

function textField(body: Record<string, unknown>): string {
  for (const key of ['message', 'detail', 'title', 'error']) {
    if (typeof body[key] === 'string') return body[key];
  }
  return '';
}

/** A non-2xx answer (or the data of an SSE `event: error`, read with status 500) as an A2AError. */
export function fromRestError(status: number, text: string, context: RestErrorContext): A2AError {
  const body = parseJson(text);
  if (!isRecord(body)) return fromHttpStatus(status, '', context);
  if (isRecord(body.error)) {
    const rpcStatus = body.error;
    const code = reasonCode(rpcStatus.details);
    const message = typeof rpcStatus.message === 'string' ? rpcStatus.message : '';
    if (code === undefined) return fromHttpStatus(status, sanitizeUpstreamText(message, context.secrets), context);
    return fromJsonRpcError({ code, message, data: rpcStatus.details }, context.secrets);
  }
  if (typeof body.code === 'number' && Number.isInteger(body.code) && body.code < 0) {
    return context.profile ? fromV025JsonRpcError(body, context.secrets, context.profile) : fromJsonRpcError(body, context.secrets);
  }
  return fromHttpStatus(status, sanitizeUpstreamText(textField(body), context.secrets), context);
}

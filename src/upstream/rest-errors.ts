import type { MappingProfile } from '../mappings/index.js';
import { A2AError, ErrorCode, upstreamAnsweredHttp } from '../model/index.js';
import { sanitizeUpstreamText } from '../scrub-text.js';
import {
  a2aReasonCode,
  agentErrorInfo,
  CONTENT_TOO_LARGE,
  credentialsRefused,
  fromJsonRpcError,
  refusesCredentials,
  tooLargeForAgent,
} from './upstream-errors.js';
import { fromV025JsonRpcError } from './v025/errors.js';
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
      return credentialsRefused(status, `The upstream agent refused the gateway's credentials (HTTP ${status}; upstream.auth)`);
    case 405:
    case 501:
      return A2AError.unsupportedOperation(said ?? 'The upstream agent does not support this operation');
    case 415:
      return A2AError.contentTypeNotSupported(said ?? 'The upstream agent does not accept this content type');
    case CONTENT_TOO_LARGE:
      return tooLargeForAgent();
    default:
      return new A2AError(ErrorCode.Internal, said ?? upstreamAnsweredHttp(status), { agentHttpStatus: status });
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
  // A refusal of the gateway's credentials, whatever code its body names, is told as one (the status decides).
  if (refusesCredentials(status)) return fromHttpStatus(status, '', context);
  const body = parseJson(text);
  if (!isRecord(body)) return fromHttpStatus(status, '', context);
  if (isRecord(body.error)) {
    const rpcStatus = body.error;
    const details = Array.isArray(rpcStatus.details) ? rpcStatus.details : [];
    const code = a2aReasonCode(details);
    const message = typeof rpcStatus.message === 'string' ? rpcStatus.message : '';
    if (code !== undefined) return fromJsonRpcError({ code, message, data: details }, context.secrets);
    // Not one of A2A's errors: the HTTP status names it, the agent's own ErrorInfo goes with it. A google.rpc.Status is
    // the agent's own error (`reported`), as its JSON-RPC error is: an a2a-js 1.x agent's failure mid-stream is its 500.
    const error = fromHttpStatus(status, sanitizeUpstreamText(message, context.secrets), context);
    return error.withOptions({ agentErrorInfo: agentErrorInfo(details, context.secrets), upstreamFault: error.upstreamFault ?? 'reported' });
  }
  if (typeof body.code === 'number' && Number.isInteger(body.code) && body.code < 0) {
    return context.profile ? fromV025JsonRpcError(body, context.secrets, context.profile) : fromJsonRpcError(body, context.secrets);
  }
  return fromHttpStatus(status, sanitizeUpstreamText(textField(body), context.secrets), context);
}

import {
  A2AError,
  ERROR_DOMAIN,
  ErrorCode,
  GATEWAY_ERROR_DOMAIN,
  GATEWAY_FAILURES,
  codeOfReason,
  withFields,
  type A2AErrorOptions,
  type ErrorInfo,
  type FieldViolation,
} from '../model/index.js';
import { withCause } from '../model/error-cause.js';
import { isRecord } from '../model/json.js';
import { sanitizeUpstreamText } from '../scrub-text.js';
import { neverReached } from './never-reached.js';

/**
 * Turning what an upstream agent says went wrong into an A2AError a caller may see. Agents put
 * Python tracebacks, workspace paths and echoed credentials into error text (iac-code passes
 * `str(exception)` through as -32603), so every upstream string is scrubbed before it leaves.
 */

const MAX_VIOLATIONS = 20;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function typeName(detail: Record<string, unknown>): string {
  return typeof detail['@type'] === 'string' ? detail['@type'] : '';
}

const MAX_AGENT_ERROR_INFO = 4;
const MAX_METADATA_ENTRIES = 20;
/** google.rpc.ErrorInfo's own rules: an UPPER_SNAKE_CASE reason of at most 63 characters, a service name as domain. */
const REASON = /^[A-Z][A-Z0-9_]{0,61}[A-Z0-9]$/;
const DOMAIN = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const METADATA_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

const errorInfoDetails = (details: unknown[]): Array<Record<string, unknown>> =>
  details.filter((detail): detail is Record<string, unknown> => isRecord(detail) && typeName(detail).endsWith('google.rpc.ErrorInfo'));

/** Under A2A's domain, or under none (A2A's errors of agents that leave it out): what A2A's reasons mean there. */
const inA2ADomain = (info: Record<string, unknown>): boolean => info.domain === ERROR_DOMAIN || info.domain === undefined || info.domain === '';

/**
 * Whether an ErrorInfo speaks for A2A: in A2A's domain, or with a reason A2A defines under another domain
 * (clients such as a2a-js read a known reason whatever its domain). Only its metadata is taken; the reason
 * is the gateway's to give, from the code (model/error-bodies.ts), so an agent cannot make one error read as another.
 */
const speaksForA2A = (info: Record<string, unknown>): boolean =>
  inA2ADomain(info) || (typeof info.reason === 'string' && codeOfReason(info.reason) !== undefined);

/** The A2A code named by the first ErrorInfo reason A2A defines, in A2A's domain (HTTP+JSON and gRPC carry no code of their own). */
export function a2aReasonCode(details: unknown[]): ErrorCode | undefined {
  for (const info of errorInfoDetails(details)) {
    const code = inA2ADomain(info) && typeof info.reason === 'string' ? codeOfReason(info.reason) : undefined;
    if (code !== undefined) return code;
  }
  return undefined;
}

/** An ErrorInfo's metadata: string entries under plain keys, values scrubbed. */
function scrubbedMetadata(metadata: unknown, secrets: readonly string[]): Record<string, string> {
  const scrubbed: Record<string, string> = {};
  if (!isRecord(metadata)) return scrubbed;
  for (const [key, value] of Object.entries(metadata).slice(0, MAX_METADATA_ENTRIES)) {
    if (typeof value === 'string' && METADATA_KEY.test(key)) scrubbed[key] = sanitizeUpstreamText(value, secrets);
  }
  return scrubbed;
}

/** The metadata of the agent's ErrorInfo for A2A, which the gateway's own ErrorInfo carries on. */
function a2aMetadata(details: unknown[], secrets: readonly string[]): Record<string, string> {
  const infos = errorInfoDetails(details).filter(speaksForA2A);
  return Object.assign({}, ...infos.map((info) => scrubbedMetadata(info.metadata, secrets))) as Record<string, string>;
}

/**
 * An ErrorInfo of the agent's own domain, in ErrorInfo's own form (nothing path-like or multi-line passes). The
 * gateway's domain is not the agent's: its reasons tell a caller what to act on (a task to follow), so an agent, or
 * another a2a-bridge in front of it naming its own tasks, cannot speak in it.
 */
const isAgentsOwn = (info: Record<string, unknown>): info is Record<string, unknown> & { reason: string; domain: string } =>
  !speaksForA2A(info) &&
  info.domain !== GATEWAY_ERROR_DOMAIN &&
  typeof info.reason === 'string' &&
  REASON.test(info.reason) &&
  typeof info.domain === 'string' &&
  DOMAIN.test(info.domain);

/** The agent's ErrorInfo under its own domain, relayed whole, metadata scrubbed like every upstream text; a few at most. */
export function agentErrorInfo(details: unknown[], secrets: readonly string[]): ErrorInfo[] {
  return errorInfoDetails(details)
    .filter(isAgentsOwn)
    .slice(0, MAX_AGENT_ERROR_INFO)
    .map((info) => ({ reason: info.reason, domain: info.domain, metadata: scrubbedMetadata(info.metadata, secrets) }));
}

/** What an agent's google.rpc details say of its error, as A2AError options. */
export function fromErrorDetails(details: unknown[], secrets: readonly string[]): A2AErrorOptions {
  return {
    metadata: a2aMetadata(details, secrets),
    violations: fieldViolations(details, secrets),
    agentErrorInfo: agentErrorInfo(details, secrets),
  };
}

/** google.rpc.BadRequest field violations, scrubbed. */
function fieldViolations(details: unknown[], secrets: readonly string[]): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const detail of details) {
    if (!isRecord(detail) || !typeName(detail).endsWith('google.rpc.BadRequest')) continue;
    const list = Array.isArray(detail.fieldViolations) ? detail.fieldViolations : [];
    for (const entry of list) {
      // Each one is scrubbed: no more than are kept.
      if (violations.length >= MAX_VIOLATIONS) break;
      if (!isRecord(entry) || typeof entry.field !== 'string') continue;
      const description = typeof entry.description === 'string' ? entry.description : '';
      violations.push({ field: sanitizeUpstreamText(entry.field, secrets), description: sanitizeUpstreamText(description, secrets) });
    }
  }
  return violations.slice(0, MAX_VIOLATIONS);
}

/**
 * An upstream JSON-RPC error object as an A2AError with the same code, told as the agent's own (`reported`). Anything
 * that is not a well-formed error object means the agent itself misbehaved (-32006).
 */
export function fromJsonRpcError(error: unknown, secrets: readonly string[] = []): A2AError {
  if (!isRecord(error) || !Number.isInteger(error.code)) {
    return A2AError.invalidAgentResponse('The upstream agent returned a malformed error');
  }
  const code = error.code as number;
  const message = typeof error.message === 'string' ? sanitizeUpstreamText(error.message, secrets) : '';
  const details = Array.isArray(error.data) ? error.data : [];
  return new A2AError(
    code,
    message || 'The upstream agent reported an error',
    withFields(fromErrorDetails(details, secrets), { upstreamFault: 'reported' as const }),
  );
}

/** A stream that sent nothing for `ms` (`upstream.stream-idle-timeout-ms`): the agent froze, its connection open. */
export const streamWentIdle = (ms: number): A2AError =>
  new A2AError(ErrorCode.Internal, `${GATEWAY_FAILURES.upstreamTimedOut}: nothing from the agent for ${ms} ms`, { hopFailure: 'quiet' });

/** HTTP 413 Content Too Large: the agent would not take a request of this size. */
export const CONTENT_TOO_LARGE = 413;

/**
 * An agent that refused the request as too large (HTTP 413; a2a-js's express servers take 100 kB of
 * body by default) answered about the caller's request, not about itself: `-32602` InvalidParams
 * (reason `INVALID_PARAMS`, HTTP+JSON 400, gRPC `INVALID_ARGUMENT`), in words the caller can act on;
 * not the agent's fault (`-32006`, HTTP 500, which clients may send again as it is). InvalidParams
 * rather than `-32600`: the envelope was fine, what it carried was too much for this agent, and its
 * ErrorInfo reason is one every binding's client reads (a2a-js 1.x: RequestMalformedError).
 */
export function tooLargeForAgent(): A2AError {
  return new A2AError(
    ErrorCode.InvalidParams,
    'The upstream agent refused the request as too large (HTTP 413): send a smaller message (less text, fewer or smaller files, less metadata)',
    { agentHttpStatus: CONTENT_TOO_LARGE },
  );
}

export interface AbortSources {
  /** The caller's signal: when it fired, the caller went away or the core gave up. */
  caller?: AbortSignal;
  /** The gateway's own whole-call bound fired. */
  timedOut?: boolean;
}

/**
 * A failure to talk to the upstream at all (refused, reset, timed out, aborted). The caller is told only
 * the gateway's words; what really happened (ECONNREFUSED, a headers timeout) stays on the error as its
 * `cause`, for the operator's log (failure-cause.ts).
 */
export function fromTransportError(error: unknown, aborts: AbortSources = {}): A2AError {
  if (error instanceof A2AError) return error;
  if (aborts.timedOut) return withCause(connectionTimedOut(), error);
  if (aborts.caller?.aborted) {
    const reason: unknown = aborts.caller.reason;
    return reason instanceof A2AError ? reason : A2AError.internal(GATEWAY_FAILURES.upstreamCallAborted);
  }
  const code = isRecord(error) && typeof error.code === 'string' ? error.code : '';
  const name = error instanceof Error ? error.name : '';
  if (TIMEOUT_CODES.has(code) || name === 'TimeoutError') return withCause(connectionTimedOut(), error);
  if (neverReached(error)) return withCause(A2AError.upstreamUnavailable(), error);
  // Reset or closed mid-call, a body that would not decode: the same words, no status that invites a retry.
  return withCause(A2AError.upstreamConnectionLost(), error);
}

/** The gateway's bound on a call passed, or the agent's deadline did: a failure of the connection (UpstreamFault). */
export const connectionTimedOut = (): A2AError => A2AError.upstreamTimedOut().withOptions({ upstreamFault: 'connection' });

/** Whether an agent's HTTP status says it refused the credentials it was sent. */
export const refusesCredentials = (status: number | undefined): status is 401 | 403 => status === 401 || status === 403;

/**
 * The agent refused the gateway's own credentials (HTTP 401/403: `upstream.auth` wrong or missing), for its card
 * or a call. Nothing a caller sends changes that, and what to fix names the gateway's config: every caller reads
 * the gateway's words for an agent it cannot use ("Upstream agent is unavailable", the facade's user in their
 * language), the operator's log reads `detail` as the cause (failure-cause.ts), `/ready` that the credentials
 * were refused (the status, which the CLI also tells refused credentials by).
 */
export function credentialsRefused(status: 401 | 403, detail: string): A2AError {
  const told = { agentHttpStatus: status, upstreamFault: 'credentials' as const };
  return withCause(new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.upstreamUnavailable, told), new Error(detail));
}

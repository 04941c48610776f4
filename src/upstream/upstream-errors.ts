import { A2AError, GATEWAY_FAILURES, type FieldViolation } from '../model/index.js';
import { isRecord } from '../model/json.js';

/**
 * Turning what an upstream agent says went wrong into an A2AError a caller may see. Agents put
 * Python tracebacks, workspace paths and echoed credentials into error text (iac-code passes
 * `str(exception)` through as -32603), so every upstream string is scrubbed before it leaves.
 */

const MAX_MESSAGE_CHARS = 500;
const MAX_VIOLATIONS = 20;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

const PATH_PATTERNS: RegExp[] = [
  /file:\/\/[^\s'"`<>]*/g,
  // Windows drive and UNC paths.
  /\b[A-Za-z]:[\\/][^\s'"`<>|]*/g,
  /\\\\[^\s'"`<>|]+/g,
  /~\/[^\s'"`<>()[\]{},;]*/g,
  // POSIX paths with at least two segments, not the path part of a URL (preceded by a host or `:`/`/`).
  /(?<![\w.:/~-])\/[^\s/'"`<>()[\]{},;]+\/[^\s'"`<>()[\]{},;]*/g,
];

const CREDENTIAL_PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted]'],
];

/** Cut a stack trace: a Python `Traceback`, `File "..."` frames or JS `    at ...` lines. */
function dropStackTrace(text: string): string {
  const traceback = text.search(/Traceback \(most recent call last\)/);
  const head = traceback >= 0 ? text.slice(0, traceback) : text;
  const lines = head.split(/\r?\n/);
  const stackLine = lines.findIndex((line) => /^\s+at\s+\S/.test(line) || /^\s*File "/.test(line));
  return (stackLine >= 0 ? lines.slice(0, stackLine) : lines).join('\n');
}

/** Upstream text made safe to show a caller: no stack, no local paths, no secrets, bounded length. */
export function sanitizeUpstreamText(text: string, secrets: readonly string[] = []): string {
  let safe = dropStackTrace(text);
  for (const secret of secrets) {
    if (secret.length >= 4) safe = safe.split(secret).join('[redacted]');
  }
  for (const [pattern, replacement] of CREDENTIAL_PATTERNS) safe = safe.replace(pattern, replacement);
  for (const pattern of PATH_PATTERNS) safe = safe.replace(pattern, '[path]');
  // eslint-disable-next-line no-control-regex
  safe = safe.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').trim();
  return safe.length > MAX_MESSAGE_CHARS ? `${safe.slice(0, MAX_MESSAGE_CHARS - 3)}...` : safe;
}

function typeName(detail: Record<string, unknown>): string {
  return typeof detail['@type'] === 'string' ? detail['@type'] : '';
}

/** google.rpc.ErrorInfo metadata: the string entries, scrubbed. */
function errorInfoMetadata(details: unknown[], secrets: readonly string[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const detail of details) {
    if (!isRecord(detail) || !typeName(detail).endsWith('google.rpc.ErrorInfo') || !isRecord(detail.metadata)) continue;
    for (const [key, value] of Object.entries(detail.metadata)) {
      if (typeof value === 'string') metadata[key] = sanitizeUpstreamText(value, secrets);
    }
  }
  return metadata;
}

/** google.rpc.BadRequest field violations, scrubbed. */
function fieldViolations(details: unknown[], secrets: readonly string[]): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const detail of details) {
    if (!isRecord(detail) || !typeName(detail).endsWith('google.rpc.BadRequest')) continue;
    const list = Array.isArray(detail.fieldViolations) ? detail.fieldViolations : [];
    for (const entry of list) {
      if (!isRecord(entry) || typeof entry.field !== 'string') continue;
      const description = typeof entry.description === 'string' ? entry.description : '';
      violations.push({ field: sanitizeUpstreamText(entry.field, secrets), description: sanitizeUpstreamText(description, secrets) });
    }
  }
  return violations.slice(0, MAX_VIOLATIONS);
}

/**
 * An upstream JSON-RPC error object as an A2AError with the same code. Anything that is not a
 * well-formed error object means the agent itself misbehaved (-32006).
 */
export function fromJsonRpcError(error: unknown, secrets: readonly string[] = []): A2AError {
  if (!isRecord(error) || !Number.isInteger(error.code)) {
    return A2AError.invalidAgentResponse('The upstream agent returned a malformed error');
  }
  const code = error.code as number;
  const message = typeof error.message === 'string' ? sanitizeUpstreamText(error.message, secrets) : '';
  const details = Array.isArray(error.data) ? error.data : [];
  return new A2AError(code, message || 'The upstream agent reported an error', {
    metadata: errorInfoMetadata(details, secrets),
    violations: fieldViolations(details, secrets),
  });
}

export interface AbortSources {
  /** The caller's signal: when it fired, the caller went away or the core gave up. */
  caller?: AbortSignal;
  /** The gateway's own whole-call bound fired. */
  timedOut?: boolean;
}

/** A failure to talk to the upstream at all (refused, reset, timed out, aborted). */
export function fromTransportError(error: unknown, aborts: AbortSources = {}): A2AError {
  if (error instanceof A2AError) return error;
  if (aborts.timedOut) return A2AError.internal(GATEWAY_FAILURES.upstreamTimedOut);
  if (aborts.caller?.aborted) {
    const reason: unknown = aborts.caller.reason;
    return reason instanceof A2AError ? reason : A2AError.internal(GATEWAY_FAILURES.upstreamCallAborted);
  }
  const code = isRecord(error) && typeof error.code === 'string' ? error.code : '';
  const name = error instanceof Error ? error.name : '';
  if (TIMEOUT_CODES.has(code) || name === 'TimeoutError') return A2AError.internal(GATEWAY_FAILURES.upstreamTimedOut);
  return A2AError.internal(GATEWAY_FAILURES.upstreamUnavailable);
}

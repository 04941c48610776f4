import { GATEWAY_FAILURES, type A2AError } from '../model/index.js';
import { isRecord } from '../model/json.js';
import { sanitizeUpstreamText } from '../scrub-text.js';
import { withoutUrlCredentials } from '../url-credentials.js';

/** What the operator's log says of why a call failed: a message scrubbed of secrets, and its code when there is one. */
export interface FailureCause {
  cause: string;
  causeCode?: string;
}

/** How deep a cause's own causes are followed for a code (undici and Node wrap the socket's error). */
const MAX_CAUSE_DEPTH = 4;

const ownCode = (error: unknown): string | undefined => (isRecord(error) && typeof error.code === 'string' ? error.code : undefined);

/** The first code on `error` or the errors it wraps (`cause`, an AggregateError's `errors` of a dual-stack connect). */
export function codeOf(error: unknown, depth = 0): string | undefined {
  if (depth > MAX_CAUSE_DEPTH || !isRecord(error)) return undefined;
  const inner = Array.isArray(error.errors) ? (error.errors as unknown[]) : [];
  return ownCode(error) ?? codeOf(error.cause, depth + 1) ?? inner.map((one) => codeOf(one, depth + 1)).find((code) => code !== undefined);
}

/** A message, or an AggregateError's first inner one (Node leaves the aggregate's own empty). */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message;
  const first = error instanceof AggregateError ? (error.errors as unknown[])[0] : undefined;
  return first instanceof Error ? first.message : error.name;
}

/**
 * Why `error` failed, for the log: the transport error the upstream client kept as its `cause`
 * (upstream-errors.ts: `connect ECONNREFUSED 10.0.0.5:8000`, ECONNREFUSED), else the error's own message,
 * which is already what a caller may read (an agent's 5xx, its -32603). Scrubbed like every upstream text:
 * a URL's credentials or a token an error repeats never reach the log.
 */
export function failureCause(error: A2AError, secrets: readonly string[] = []): FailureCause {
  const cause: unknown = error.cause;
  if (cause === undefined) return { cause: error.message };
  const code = codeOf(cause);
  // A request URL in undici's words may carry a signed query (`?sig=`, `X-Amz-Credential=`), which the upstream scrub leaves.
  const said = withoutUrlCredentials(sanitizeUpstreamText(messageOf(cause), secrets, { keepAddresses: true }));
  return { cause: said, ...(code ? { causeCode: code } : {}) };
}

/**
 * A failure that is no fault of the caller's: every binding answers it with a 5xx (a caller's bad request, a cap: 4xx).
 * A call ended because its caller left is answered so too, but nobody reads it and nothing failed upstream.
 */
export const isServerFailure = (error: A2AError): boolean =>
  error.statusInfo.httpStatus >= 500 && error.message !== GATEWAY_FAILURES.upstreamCallAborted;

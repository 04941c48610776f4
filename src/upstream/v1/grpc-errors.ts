import { status, type ServiceError } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN, decodeErrorInfo, decodeStatus, type DecodedErrorInfo } from '@a2a-js/sdk/errors/grpc';
import { A2AError, ERROR_INFO_TYPE, ErrorCode, withFields, type ErrorCode as Code } from '../../model/index.js';
import { withCause } from '../../model/error-cause.js';
import { sanitizeUpstreamText } from '../../scrub-text.js';
import {
  a2aReasonCode,
  connectionTimedOut,
  credentialsRefused,
  fromErrorDetails,
  fromTransportError,
  type AbortSources,
} from '../upstream-errors.js';

/** For a status without ErrorInfo (a server that is not A2A-aware answered): the nearest A2A code. */
const CODE_BY_STATUS: Partial<Record<status, Code>> = {
  [status.INVALID_ARGUMENT]: ErrorCode.InvalidParams,
  [status.NOT_FOUND]: ErrorCode.TaskNotFound,
  [status.UNIMPLEMENTED]: ErrorCode.UnsupportedOperation,
};

/** The statuses by which an agent refuses the gateway's credentials, as the HTTP statuses the other bindings say it with. */
const REFUSED_CREDENTIALS: Partial<Record<status, 401 | 403>> = {
  [status.UNAUTHENTICATED]: 401,
  [status.PERMISSION_DENIED]: 403,
};

/** The gRPC status an agent refused credentials with, by the HTTP status it is told as (credentialsRefused). */
export function grpcRefusalName(httpStatus: 401 | 403): string {
  const code = (Object.keys(REFUSED_CREDENTIALS).map(Number) as status[]).find((grpc) => REFUSED_CREDENTIALS[grpc] === httpStatus);
  return code === undefined ? String(httpStatus) : status[code];
}

const isServiceError = (error: unknown): error is ServiceError => error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number';

/**
 * How grpc-js begins the details of a status it makes itself rather than reads from the agent's trailers, and whether
 * it says the connection or the stream broke while the call was under way (`broke`): then the call failed as an HTTP
 * agent's connection reset mid-stream does, and is told so (`connection`, model/errors.ts UpstreamFault), so that the
 * facade follows the turn again (surfaces/v025/recovery/turn-resubscribe.ts brokeOff), the agent running it on. The others are
 * an answer that came whole but is not one (an HTTP page, a message past the limit or not decoding) or a request the
 * gateway did not send: nothing to follow again, and not the agent's own error either (unmarked). grpc-js makes them
 * with codes an agent's server sends too (INTERNAL, UNKNOWN, RESOURCE_EXHAUSTED, UNIMPLEMENTED); its UNAVAILABLE are
 * told by NEVER_SENT, its PERMISSION_DENIED by NOT_SECURE_ENOUGH, its CANCELLED and DEADLINE_EXCEEDED by their code.
 * Why the words: nothing else tells them apart. A status grpc-js made has empty metadata; one it received has the trailers' less
 * `grpc-status` and `grpc-message`, which after a stream's messages are often all there is (an a2a-js agent whose
 * store failed mid-turn sends no other); the error carries no mark of where its status came from. A grpc-js that
 * rewords one would have it read as the agent's: test/upstream/v1/grpc-own-statuses.test.ts has grpc-js make the
 * common ones.
 */
const GRPC_JS_OWN_STATUS: ReadonlyArray<{ words: string; broke: boolean }> = [
  // The stream reset by the agent's side (a proxy whose hop to the agent broke resets it so), ended without trailers
  // ("Call ended without gRPC status"), or failed on a socket error of the connection: the answer cut off mid-way.
  { words: 'Received RST_STREAM with code', broke: true },
  // RST_STREAM ENHANCE_YOUR_CALM: the peer cut the stream it thought too busy, the call under way.
  { words: 'Bandwidth exhausted', broke: true },
  // The connection went as the call began (its session closed, or the agent's side sent GOAWAY).
  { words: 'Failed to start HTTP/2 stream', broke: true },
  // An answer without `grpc-status` (a proxy's page), or trailers without one: whole, though not a gRPC answer.
  { words: 'Received HTTP status code', broke: false },
  { words: 'No status information received', broke: false },
  // A message grpc-js stopped reading: past the size limit, or not decoding. The connection stood.
  { words: 'Received message larger than max', broke: false },
  { words: 'Received message that decompresses to a size larger than', broke: false },
  { words: 'Failed to decompress', broke: false },
  { words: 'Response message parsing error', broke: false },
  // The request not sent whole: grpc-js's own write failing, too large or not serializing. Nothing of the turn was
  // under way. (A write that failed under UNAVAILABLE is the connection failing under the call: NEVER_SENT.)
  { words: 'Write error', broke: false },
  { words: 'Write failed', broke: false },
  { words: 'Failed to write message', broke: false },
  { words: 'Request message serialization failure', broke: false },
  { words: 'Attempted to send message with a size larger than', broke: false },
  // A unary call answered OK without its message, or with more than one: whole, though not an answer.
  { words: 'No message received', broke: false },
  { words: 'Too many responses received', broke: false },
];

/**
 * How grpc-js begins the details of an UNAVAILABLE it makes when no connection took the call: nothing of it reached
 * the agent, so asking again runs no turn twice, and the caller is invited to (A2AError.upstreamUnavailable:
 * HTTP+JSON 503, gRPC UNAVAILABLE), as the HTTP clients tell a refused connection (never-reached.ts). Any other UNAVAILABLE is a
 * connection lost mid-call (upstreamConnectionLost: no 503), as an HTTP agent's connection reset is: grpc-js's when
 * the connection closed or was reset under the call ("Connection dropped", the peer's GOAWAY; "read ECONNRESET"), its
 * write failing, a proxy's HTTP 502/503/504 page, or one the agent's side sent itself (gRPC's own UNAVAILABLE is "not
 * always safe to retry"): none says the agent did not begin the turn, and a retry would run an IaC deployment twice.
 * Why the words, and these rather than those of a drop: the client knows no better, since grpc-js tells no moment the
 * request left and a grpc-js server sends a unary call's headers with its answer (a SendMessage whose connection
 * dropped mid-turn had no more answer than one never sent); and a list of what proves nothing was sent fails safe: a
 * grpc-js that rewords one of these loses a retry's invitation, where a list of drops reworded would invite the retry.
 */
const NEVER_SENT: readonly string[] = [
  // No connection to pick: refused, no route, a TLS handshake that failed (grpc-js's "Last error: …" follows).
  'No connection established',
  // The agent's host not resolved, or its address not parsed: no connection was tried.
  'Name resolution failed for target',
  'Failed to parse DNS address',
  // The channel closed (the card named another address) before the call started.
  'Channel closed before call started',
  // HTTP/2 REFUSED_STREAM: the peer promises it did not process the stream (RFC 9113 §8.7); grpc-js tried it once more.
  'Stream refused by server',
];

/** Whether `error` is an UNAVAILABLE grpc-js made before the call left for the agent (NEVER_SENT): nothing reached it. */
export const grpcCallNeverSent = (error: unknown): boolean =>
  isServiceError(error) && error.code === status.UNAVAILABLE && NEVER_SENT.some((words) => (error.details ?? '').startsWith(words));

/**
 * How grpc-js words the PERMISSION_DENIED it makes of a stream the agent's side reset with HTTP/2 INADEQUATE_SECURITY:
 * the connection's TLS (its version or cipher) is one HTTP/2 forbids (RFC 9113 §9.2), no refusal of the gateway's
 * credentials (`upstream.auth`), which PERMISSION_DENIED says otherwise; asking again meets the same TLS, so it is no
 * agent out of reach either (no 503). grpc-js's other PERMISSION_DENIED and UNAUTHENTICATED are an HTTP 403 or 401
 * without a gRPC status ("Received HTTP status code 403", a proxy's), which is how the HTTP clients read refused
 * credentials too.
 */
const NOT_SECURE_ENOUGH = 'Protocol not secure enough';

/** A stream reset for its connection's security (NOT_SECURE_ENOUGH): a failure of the connection, told to the operator as one. */
function insecureConnection(error: ServiceError): A2AError {
  const detail =
    "The upstream agent's side refused the connection's TLS for HTTP/2 " +
    "(INADEQUATE_SECURITY: a TLS version or cipher HTTP/2 forbids; upstream.tls, or the agent's TLS)";
  return withCause(A2AError.upstreamConnectionLost(), new Error(`${detail}: ${error.details}`, { cause: error }));
}

/** The entry of GRPC_JS_OWN_STATUS a status's details begin with: none when the agent's server sent the status. */
const grpcJsOwn = ({ details = '' }: ServiceError): { broke: boolean } | undefined =>
  GRPC_JS_OWN_STATUS.find(({ words }) => details.startsWith(words));

/**
 * The ErrorInfo details of a status's `grpc-status-details-bin`, in the JSON form the other bindings
 * carry them in, so one reader (upstream-errors.ts) takes them all; none when the blob does not decode.
 */
function errorInfoDetails(error: ServiceError): Array<{ '@type': string } & DecodedErrorInfo> {
  const [bin] = error.metadata?.get(GRPC_STATUS_DETAILS_BIN) ?? [];
  if (!Buffer.isBuffer(bin)) return [];
  try {
    const infos = decodeStatus(bin).details.filter((any) => any.typeUrl === ERROR_INFO_TYPE);
    return infos.map((any) => withFields({ '@type': ERROR_INFO_TYPE }, decodeErrorInfo(any.value)));
  } catch {
    return [];
  }
}

/**
 * What an upstream gRPC call failed with, as a scrubbed A2AError: the code named by its ErrorInfo
 * reason, else the nearest one for its status; the agent's own ErrorInfo goes with it, and a status its server sent is
 * told as its own (`reported`), one grpc-js made is not, or is a connection lost mid-call (GRPC_JS_OWN_STATUS,
 * NEVER_SENT). The caller's own abort, the gateway's timeout, an unreachable agent and refused credentials read as they
 * do on the JSON-RPC client.
 */
export function fromGrpcError(error: unknown, secrets: readonly string[], aborts: AbortSources = {}): A2AError {
  if (!isServiceError(error) || aborts.timedOut || aborts.caller?.aborted) return fromTransportError(error, aborts);
  if (error.code === status.DEADLINE_EXCEEDED) return connectionTimedOut();
  // grpc-js's words go to the operator's log (the cause), as an HTTP agent's refused or reset connection's do.
  if (error.code === status.UNAVAILABLE)
    return withCause(grpcCallNeverSent(error) ? A2AError.upstreamUnavailable() : A2AError.upstreamConnectionLost(), error);
  if (error.code === status.PERMISSION_DENIED && error.details === NOT_SECURE_ENOUGH) return insecureConnection(error);
  // Not the gateway's cancel (its caller's abort is told above): the call ended mid-way, as a reset connection does.
  if (error.code === status.CANCELLED) return A2AError.upstreamConnectionLost();
  const refused = REFUSED_CREDENTIALS[error.code];
  if (refused !== undefined) {
    // The agent's own words (scrubbed) are the operator's, as the cause; the caller reads the gateway's.
    const said = sanitizeUpstreamText(error.details ?? '', secrets);
    const detail = `The upstream agent refused the gateway's credentials (gRPC ${status[error.code]}; upstream.auth)`;
    return credentialsRefused(refused, said ? `${detail}: ${said}` : detail);
  }
  const own = grpcJsOwn(error);
  // The caller reads the gateway's words, as for an HTTP agent's connection reset; grpc-js's go to the operator's log.
  if (own?.broke) return withCause(A2AError.upstreamConnectionLost(), error);
  const message = sanitizeUpstreamText(error.details ?? '', secrets) || 'The upstream agent reported an error';
  const details = errorInfoDetails(error);
  const code = a2aReasonCode(details) ?? CODE_BY_STATUS[error.code] ?? ErrorCode.Internal;
  const options = fromErrorDetails(details, secrets);
  // A status the agent's server sent is its own error, as a JSON-RPC error object is, so that a turn it failed
  // mid-stream ends (core/read-on.ts endsTheTurn).
  return new A2AError(code, message, own ? options : withFields(options, { upstreamFault: 'reported' as const }));
}

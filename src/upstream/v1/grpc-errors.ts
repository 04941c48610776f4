import { status, type ServiceError } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN, decodeErrorInfo, decodeStatus, type DecodedErrorInfo } from '@a2a-js/sdk/errors/grpc';
import { A2AError, ERROR_INFO_TYPE, ErrorCode, withFields, type ErrorCode as Code } from '../../model/index.js';
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
 * How grpc-js begins the details of a status it makes itself rather than reads from the agent's trailers: the stream
 * reset or ended without a status (a process gone, a proxy), an HTTP answer without `grpc-status` (a proxy's page), a
 * message it stopped reading (past the size limit, not decoding), its own writes failing. It makes them with codes an
 * agent's server sends too (INTERNAL, UNKNOWN, RESOURCE_EXHAUSTED, UNIMPLEMENTED); those it makes with the others
 * (UNAVAILABLE, CANCELLED, DEADLINE_EXCEEDED) fromGrpcError tells by their code. Why the words: nothing else tells
 * them apart. A status grpc-js made has empty metadata; one it received has the trailers' less `grpc-status` and
 * `grpc-message`, which after a stream's messages are often all there is (an a2a-js agent whose store failed mid-turn
 * sends no other); the error carries no mark of where its status came from. A grpc-js that rewords one would have it
 * read as the agent's: test/upstream/v1/grpc-own-statuses.test.ts has grpc-js make the common ones.
 */
const GRPC_JS_OWN_STATUS: readonly string[] = [
  'Received RST_STREAM with code', // the stream reset, or ended without trailers
  'Received HTTP status code', // an answer without `grpc-status`
  'No status information received',
  'Received message larger than max',
  'Received message that decompresses to a size larger than',
  'Failed to decompress',
  'Response message parsing error',
  'Bandwidth exhausted',
  'Write error',
  'Write failed',
  'Failed to write message',
  'Request message serialization failure',
  'Attempted to send message with a size larger than',
  'Failed to start HTTP/2 stream',
  'No message received', // a unary call answered OK without its message
  'Too many responses received',
];

/**
 * Whether the agent's server sent the status (its trailers): its own error, as a JSON-RPC error object is
 * (`reported`, model/errors.ts UpstreamFault), so that a turn it failed mid-stream ends (core/read-on.ts endsTheTurn).
 */
const sentByTheAgent = ({ details = '' }: ServiceError): boolean => !GRPC_JS_OWN_STATUS.some((words) => details.startsWith(words));

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
 * told as its own (`reported`), one grpc-js made is not (sentByTheAgent). The caller's own
 * abort, the gateway's timeout, an unreachable agent and refused credentials read as they do on the JSON-RPC client.
 */
export function fromGrpcError(error: unknown, secrets: readonly string[], aborts: AbortSources = {}): A2AError {
  if (!isServiceError(error) || aborts.timedOut || aborts.caller?.aborted) return fromTransportError(error, aborts);
  if (error.code === status.DEADLINE_EXCEEDED) return connectionTimedOut();
  if (error.code === status.UNAVAILABLE) return A2AError.upstreamUnavailable();
  // Not the gateway's cancel (its caller's abort is told above): the call ended mid-way, as a reset connection does.
  if (error.code === status.CANCELLED) return A2AError.upstreamConnectionLost();
  const refused = REFUSED_CREDENTIALS[error.code];
  if (refused !== undefined) {
    // The agent's own words (scrubbed) are the operator's, as the cause; the caller reads the gateway's.
    const said = sanitizeUpstreamText(error.details ?? '', secrets);
    const detail = `The upstream agent refused the gateway's credentials (gRPC ${status[error.code]}; upstream.auth)`;
    return credentialsRefused(refused, said ? `${detail}: ${said}` : detail);
  }
  const message = sanitizeUpstreamText(error.details ?? '', secrets) || 'The upstream agent reported an error';
  const details = errorInfoDetails(error);
  const code = a2aReasonCode(details) ?? CODE_BY_STATUS[error.code] ?? ErrorCode.Internal;
  const options = fromErrorDetails(details, secrets);
  return new A2AError(code, message, sentByTheAgent(error) ? withFields(options, { upstreamFault: 'reported' as const }) : options);
}

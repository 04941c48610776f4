import type { ErrorInfo } from './error-info.js';
import {
  codeInfo,
  ErrorCode,
  GatewayErrorCode,
  HOP_FAILURES,
  REFUSED_FOR_NOW,
  STORE_RETRY_AFTER_SECONDS,
  TURN_RETRY_AFTER_SECONDS,
} from './error-codes.js';
import type { CodeInfo, HopFailure, Refusal } from './error-codes.js';
import { withCause } from './error-cause.js';
import { withFields } from './with-fields.js';

/**
 * The gateway's one error type. Every layer throws A2AError; each surface renders it in its
 * caller's protocol version (its code and how each binding answers it: error-codes.ts).
 */
export interface FieldViolation {
  field: string;
  description: string;
}

export interface A2AErrorOptions {
  metadata?: Record<string, string>;
  violations?: FieldViolation[];
  retryAfterSeconds?: number;
  /** With retryAfterSeconds: which refusal for now (default overCap). */
  refusal?: Refusal;
  /** Without retryAfterSeconds: a failure of the hop (HOP_FAILURES), answered with its own status. */
  hopFailure?: HopFailure;
  agentErrorInfo?: readonly ErrorInfo[];
  /** The gateway's own ErrorInfo, under GATEWAY_ERROR_DOMAIN: what a client acts on that A2A has no reason for. */
  gatewayErrorInfo?: ErrorInfo;
  agentHttpStatus?: number;
  /** What failed of a call to the upstream agent, told where the upstream client makes the error (UpstreamFault). */
  upstreamFault?: UpstreamFault;
}

/**
 * What failed of a call to the upstream agent, as the upstream clients tell it, for the code that acts on it
 * (the facade follows a turn again after a `connection` failure), never by the error's words, which several
 * failures share ("Upstream agent is unavailable") and an agent's own error could repeat:
 * `connection`: never made, lost mid-call or timed out, so the agent may still be at the turn;
 * `credentials`: the agent refused the gateway's credentials (401/403), which asking again does not change;
 * `reported`: the agent answered with an error of its own (a JSON-RPC error object, an HTTP+JSON google.rpc.Status, a
 * gRPC status its server sent), whatever its code: its -32603 is its own failure (an a2a-js 1.x agent whose task store
 * failed mid-turn), not the gateway's, which carries the same code; nor a status grpc-js made itself
 * (upstream/v1/grpc-errors.ts).
 */
export type UpstreamFault = 'connection' | 'credentials' | 'reported';

export class A2AError extends Error {
  readonly code: number;
  /** google.rpc.ErrorInfo metadata: a string map. */
  readonly metadata: Record<string, string>;
  readonly violations: FieldViolation[];
  /**
   * Set on a call the gateway refuses before any work and takes again later (a client past its cap, its
   * store out of reach): every HTTP binding answers it with this `Retry-After` and the refusal's status
   * (JSON-RPC too, which answers other errors with 200), gRPC with the refusal's status.
   */
  readonly retryAfterSeconds?: number;
  /**
   * google.rpc.ErrorInfo the upstream agent gave under its own domain (scrubbed, src/upstream/upstream-errors.ts),
   * relayed after the gateway's own (error-bodies.ts).
   */
  readonly agentErrorInfo: readonly ErrorInfo[];
  /**
   * The HTTP status of an agent's answer that this error reports in its place (a 401, a proxy's 502):
   * what the CLI tells refused credentials by. No surface renders it; callers read the message.
   */
  readonly agentHttpStatus?: number;
  private readonly options: A2AErrorOptions;

  constructor(code: number, message: string, options: A2AErrorOptions = {}) {
    super(message);
    this.name = 'A2AError';
    this.code = code;
    this.options = options;
    this.metadata = options.metadata ?? {};
    this.violations = options.violations ?? [];
    this.agentErrorInfo = options.agentErrorInfo ?? [];
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.agentHttpStatus !== undefined) this.agentHttpStatus = options.agentHttpStatus;
  }

  /**
   * The same error in other words (a surface that names things as its caller knows them, or speaks its language);
   * its cause goes with it, so the log says what really failed, not the words the caller read.
   */
  toldAs(message: string): A2AError {
    return message === this.message ? this : withCause(new A2AError(this.code, message, this.options), this.cause);
  }

  /** The same error with these options changed (an agent's own ErrorInfo added to an error read from its status), its cause kept. */
  withOptions(changes: A2AErrorOptions): A2AError {
    return withCause(new A2AError(this.code, this.message, withFields(this.options, changes)), this.cause);
  }

  /** How the bindings answer it: a refusal for now (retryAfterSeconds), a failure of the hop, or its code's row of the table. */
  get statusInfo(): CodeInfo {
    if (this.retryAfterSeconds !== undefined) return REFUSED_FOR_NOW[this.options.refusal ?? 'overCap'];
    return this.options.hopFailure ? HOP_FAILURES[this.options.hopFailure] : codeInfo(this.code);
  }

  /** Which failure of the hop this is (HOP_FAILURES), if one. */
  get hopFailure(): HopFailure | undefined {
    return this.options.hopFailure;
  }

  /** What failed of the call to the upstream agent (UpstreamFault), if the upstream client told it. */
  get upstreamFault(): UpstreamFault | undefined {
    return this.options.upstreamFault;
  }

  /** The gateway's own ErrorInfo, if it gave one (rendered by error-bodies.ts errorInfos on every binding). */
  get gatewayErrorInfo(): ErrorInfo | undefined {
    return this.options.gatewayErrorInfo;
  }

  get reason(): string | undefined {
    return this.statusInfo.reason;
  }

  static parse(message: string): A2AError {
    return new A2AError(ErrorCode.ParseError, message);
  }
  static invalidRequest(message: string): A2AError {
    return new A2AError(ErrorCode.InvalidRequest, message);
  }
  static methodNotFound(method?: string): A2AError {
    return new A2AError(ErrorCode.MethodNotFound, 'Method not found', method ? { metadata: { method } } : {});
  }
  static invalidParams(message: string, violations: FieldViolation[] = []): A2AError {
    return new A2AError(ErrorCode.InvalidParams, message, { violations });
  }
  static internal(message: string = GATEWAY_FAILURES.internal): A2AError {
    return new A2AError(ErrorCode.Internal, message);
  }
  /**
   * The agent was never reached (refused, no such host, a refused TLS handshake: upstream/never-reached.ts; over
   * gRPC, an UNAVAILABLE grpc-js made before any connection took the call). A connection lost mid-call keeps these
   * words without the status (upstreamConnectionLost): the agent
   * may have begun the turn, and a 503 invites a retry that would run it twice.
   */
  static upstreamUnavailable(): A2AError {
    return new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.upstreamUnavailable, { hopFailure: 'unavailable', upstreamFault: 'connection' });
  }
  /** A call to the agent whose connection was lost mid-way: the words of upstreamUnavailable without its status (see there). */
  static upstreamConnectionLost(): A2AError {
    return new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.upstreamUnavailable, { upstreamFault: 'connection' });
  }
  /** The gateway's bound on an upstream call passed (or the agent's own deadline did), in these words. */
  static upstreamTimedOut(message: string = GATEWAY_FAILURES.upstreamTimedOut): A2AError {
    return new A2AError(ErrorCode.Internal, message, { hopFailure: 'timedOut' });
  }
  /** An open call ended because the gateway stops: another replica, or this one restarted, takes it again. */
  static shuttingDown(): A2AError {
    return new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.shuttingDown, { hopFailure: 'unavailable' });
  }
  static taskNotFound(taskId?: string, message?: string): A2AError {
    return new A2AError(ErrorCode.TaskNotFound, message ?? (taskId ? `Task ${taskId} not found` : 'Task not found'), {
      metadata: taskId ? { taskId } : {},
    });
  }

  /** A task with nothing more to tell a subscriber, in iac-code's words (-32001 "not active"). */
  static taskNotActive(taskId: string): A2AError {
    return A2AError.taskNotFound(taskId, `Task ${taskId} is not active`);
  }
  static taskNotCancelable(taskId?: string): A2AError {
    return new A2AError(ErrorCode.TaskNotCancelable, 'Task cannot be canceled', { metadata: taskId ? { taskId } : {} });
  }
  static pushNotSupported(): A2AError {
    return new A2AError(ErrorCode.PushNotificationNotSupported, 'Push notifications are not supported by the agent');
  }
  static unsupportedOperation(message: string): A2AError {
    return new A2AError(ErrorCode.UnsupportedOperation, message);
  }
  static contentTypeNotSupported(message: string): A2AError {
    return new A2AError(ErrorCode.ContentTypeNotSupported, message);
  }
  static invalidAgentResponse(message = 'The upstream agent returned an invalid response'): A2AError {
    return new A2AError(ErrorCode.InvalidAgentResponse, message);
  }
  static extendedCardNotConfigured(): A2AError {
    return new A2AError(ErrorCode.ExtendedAgentCardNotConfigured, 'The agent does not offer an extended agent card');
  }
  static extensionSupportRequired(uris: string[]): A2AError {
    return new A2AError(ErrorCode.ExtensionSupportRequired, `The client must request the required extensions: ${uris.join(', ')}`, {
      metadata: { extensions: uris.join(',') },
    });
  }
  /** Said so that an end user (a Bailian user behind the facade's one key) can read it too. */
  static tooManyTurnsInFlight(limit: number): A2AError {
    return new A2AError(
      GatewayErrorCode.TooManyTurnsInFlight,
      `The agent is busy with too many requests from this client (at most ${limit} at once). Please try again in a moment.`,
      { retryAfterSeconds: TURN_RETRY_AFTER_SECONDS },
    );
  }
  /** The HTTP layer's cap on one forwarded client's requests in flight (`server.max-connections-per-client` behind a proxy). */
  static tooManyRequestsInFlight(limit: number): A2AError {
    return new A2AError(
      GatewayErrorCode.TooManyTurnsInFlight,
      `Too many requests in flight from this client address (at most ${limit} at once). Please try again in a moment.`,
      { retryAfterSeconds: TURN_RETRY_AFTER_SECONDS },
    );
  }
  /**
   * No turn while the gateway cannot record tasks (its store out of reach): not this caller's doing, and
   * over in a moment, so a refusal for now that says so (503, UNAVAILABLE) with the code and words of before.
   */
  static registryOutOfReach(): A2AError {
    return new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.registryOutOfReach, {
      retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
      refusal: 'unavailable',
    });
  }
  /**
   * A call that found every pooled connection to the agent held (`upstream.connections`, streams each holding one)
   * for `upstream.queue-timeout-ms`: never sent, and over once a stream ends, so a refusal for now (503, UNAVAILABLE)
   * that tells the caller to try again, rather than a wait with no end.
   */
  static upstreamBusy(): A2AError {
    return new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.upstreamBusy, {
      retryAfterSeconds: TURN_RETRY_AFTER_SECONDS,
      refusal: 'unavailable',
    });
  }
  /** A push config the task does not have: A2A's TaskNotFoundError, in words that name the config (a2a-js 1.x). */
  static pushConfigNotFound(taskId: string, configId: string): A2AError {
    return new A2AError(ErrorCode.TaskNotFound, `Push notification config ${configId} not found`, { metadata: { taskId, configId } });
  }
  /**
   * `missing`: the caller sent no version at all, which the spec reads as `version` (0.3); said so, with
   * what to send, since "0.3 is not supported" alone reads as a version the caller never wrote.
   */
  /** `missingFrom`: the version was not sent at all, in what it is sent in (HTTP: a header; gRPC: call metadata). */
  static versionNotSupported(version: string, missingFrom?: 'header' | 'metadata'): A2AError {
    const message = missingFrom
      ? `No A2A-Version ${missingFrom} was sent${missingFrom === 'metadata' ? ' with the call' : ''}, which A2A reads as version '${version}'; this handler supports '1.0': send the ${missingFrom} A2A-Version: 1.0.`
      : `A2A version '${version}' is not supported by this handler. Expected version '1.0'.`;
    return new A2AError(ErrorCode.VersionNotSupported, message, { metadata: { version } });
  }
}

/**
 * The gateway's own words for a call it could not finish, written in one place because a surface may show
 * them to a person in another language (the facade's words.ts).
 */
export const GATEWAY_FAILURES = {
  upstreamTimedOut: 'Upstream agent timed out',
  upstreamUnavailable: 'Upstream agent is unavailable',
  upstreamBusy: 'Every connection to the upstream agent is in use; try again in a moment',
  upstreamCallAborted: 'The upstream call was aborted',
  abortedOrTimedOut: 'The upstream call was aborted or timed out',
  shuttingDown: 'The gateway is shutting down',
  internal: 'Internal error',
  registryOutOfReach: 'The gateway cannot record tasks right now; try again in a moment',
  // An agent that answers other than A2A's JSON-RPC (a proxy's page with status 200, a broken stream): the
  // gateway's words for it, which a person reads in their own language as the others.
  notJsonRpcAnswer: 'The upstream agent returned a response that is not JSON-RPC',
  notJsonRpcStreamEvent: 'The upstream agent sent a stream event that is not JSON-RPC',
  malformedErrorEvent: 'The upstream agent sent a malformed error event',
  answeredAnotherRequest: 'The upstream agent answered a different request',
} as const;

export type GatewayFailure = keyof typeof GATEWAY_FAILURES;

/** The gateway's words for an agent that answered an HTTP error status instead of A2A (a crash's 500, a proxy's 502). */
export const upstreamAnsweredHttp = (status: number): string => `The upstream agent answered HTTP ${status}`;
/** Those words read back: the status they name (the facade tells them in the turn's language). */
export const answeredHttpStatus = (reason: string): string | undefined => /^The upstream agent answered HTTP (\d{3})$/u.exec(reason)?.[1];

/** Anything thrown anywhere becomes an A2AError whose message is safe to show a caller. */
export function toA2AError(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.abortedOrTimedOut);
  }
  return A2AError.internal();
}

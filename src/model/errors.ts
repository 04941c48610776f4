import type { ErrorInfo } from './error-info.js';
import { withFields } from './with-fields.js';

/**
 * The gateway's one error type. Every layer throws A2AError; each surface renders it in its
 * caller's protocol version. Codes and reasons are A2A 1.0's (spec §3.3.2, §9.5).
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  TaskNotFound: -32001,
  TaskNotCancelable: -32002,
  PushNotificationNotSupported: -32003,
  UnsupportedOperation: -32004,
  ContentTypeNotSupported: -32005,
  InvalidAgentResponse: -32006,
  ExtendedAgentCardNotConfigured: -32007,
  ExtensionSupportRequired: -32008,
  VersionNotSupported: -32009,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * The gateway's own codes, not A2A's: JSON-RPC 2.0 leaves -32000…-32099 to implementations, and A2A
 * keeps -32001…-32099 of it for its errors, so -32000 names no A2A error, today or later.
 */
export const GatewayErrorCode = {
  /** A client past its cap on turns in flight (`limits.*`, core/turn-limits.ts). */
  TooManyTurnsInFlight: -32000,
} as const;

/** Seconds a refused turn's caller is told to wait (HTTP `Retry-After`): the cap frees when one of its turns ends. */
export const TURN_RETRY_AFTER_SECONDS = 5;

/** Seconds a caller is told to wait while the gateway's store is out of reach: Redis reconnects within a few. */
export const STORE_RETRY_AFTER_SECONDS = 2;

interface CodeInfo {
  reason?: string;
  httpStatus: number;
  grpcStatus: string;
}

const CODE_INFO: Record<number, CodeInfo> = {
  [-32700]: { httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [-32600]: { httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [-32601]: { httpStatus: 404, grpcStatus: 'NOT_FOUND' },
  [-32602]: { reason: 'INVALID_PARAMS', httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [-32603]: { httpStatus: 500, grpcStatus: 'INTERNAL' },
  [-32001]: { reason: 'TASK_NOT_FOUND', httpStatus: 404, grpcStatus: 'NOT_FOUND' },
  [-32002]: { reason: 'TASK_NOT_CANCELABLE', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [-32003]: { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [-32004]: { reason: 'UNSUPPORTED_OPERATION', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [-32005]: { reason: 'CONTENT_TYPE_NOT_SUPPORTED', httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [-32006]: { reason: 'INVALID_AGENT_RESPONSE', httpStatus: 500, grpcStatus: 'INTERNAL' },
  [-32007]: { reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [-32008]: { reason: 'EXTENSION_SUPPORT_REQUIRED', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [-32009]: { reason: 'VERSION_NOT_SUPPORTED', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
};

export const ERROR_DOMAIN = 'a2a-protocol.org';

export function codeInfo(code: number): CodeInfo {
  return CODE_INFO[code] ?? { httpStatus: 500, grpcStatus: 'INTERNAL' };
}

/** ErrorInfo reason → A2A code, for the reasons A2A defines (the table above); undefined for any other. */
const CODE_BY_REASON: ReadonlyMap<string, ErrorCode> = new Map(
  Object.values(ErrorCode).flatMap((code): Array<[string, ErrorCode]> => {
    const reason = codeInfo(code).reason;
    return reason ? [[reason, code]] : [];
  }),
);

export const codeOfReason = (reason: string): ErrorCode | undefined => CODE_BY_REASON.get(reason);

/**
 * The gateway's own refusals of a call for now, without ErrorInfo (they are not A2A errors, and a reason
 * under A2A's domain would claim they are), told apart by the error, not its code (an agent's own -32000
 * is an ordinary server error): a caller over its cap is told to back off (HTTP 429, RESOURCE_EXHAUSTED);
 * a gateway that can serve no one right now (its store out of reach) is unavailable (HTTP 503, UNAVAILABLE).
 */
const REFUSED_FOR_NOW = {
  overCap: { httpStatus: 429, grpcStatus: 'RESOURCE_EXHAUSTED' },
  unavailable: { httpStatus: 503, grpcStatus: 'UNAVAILABLE' },
} as const satisfies Record<string, CodeInfo>;

export type Refusal = keyof typeof REFUSED_FOR_NOW;

/**
 * A call the hop could not finish through no fault of the agent's answer or the gateway's code: the agent
 * out of reach, the gateway's bound on it passed, the gateway shutting down. Answered as a proxy answers
 * them (google.rpc's pairs: UNAVAILABLE 503, DEADLINE_EXCEEDED 504), so a client or its load balancer
 * knows to try again later or elsewhere; INTERNAL would say the gateway is broken. JSON-RPC keeps
 * answering them with 200 (its errors are in the body), so the 0.2.5 facade's answer to Bailian is as before.
 */
const HOP_FAILURES = {
  unavailable: { httpStatus: 503, grpcStatus: 'UNAVAILABLE' },
  timedOut: { httpStatus: 504, grpcStatus: 'DEADLINE_EXCEEDED' },
  /** A stream that went quiet past its bound: timed out to its caller, and, to the facade, a stream that broke off. */
  quiet: { httpStatus: 504, grpcStatus: 'DEADLINE_EXCEEDED' },
} as const satisfies Record<string, CodeInfo>;

export type HopFailure = keyof typeof HOP_FAILURES;

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
  agentHttpStatus?: number;
}

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

  /** The same error in other words (a surface that names things as its caller knows them, or speaks its language). */
  toldAs(message: string): A2AError {
    return message === this.message ? this : new A2AError(this.code, message, this.options);
  }

  /** The same error with these options changed (an agent's own ErrorInfo added to an error read from its status). */
  withOptions(changes: A2AErrorOptions): A2AError {
    return new A2AError(this.code, this.message, withFields(this.options, changes));
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
   * The agent was never reached (refused, no such host, a refused TLS handshake: upstream/never-reached.ts),
   * or answered gRPC UNAVAILABLE. A connection lost mid-call keeps these words without the status: the agent
   * may have begun the turn, and a 503 invites a retry that would run it twice.
   */
  static upstreamUnavailable(): A2AError {
    return new A2AError(ErrorCode.Internal, GATEWAY_FAILURES.upstreamUnavailable, { hopFailure: 'unavailable' });
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
  /** A push config the task does not have: A2A's TaskNotFoundError, in words that name the config (a2a-js 1.x). */
  static pushConfigNotFound(taskId: string, configId: string): A2AError {
    return new A2AError(ErrorCode.TaskNotFound, `Push notification config ${configId} not found`, { metadata: { taskId, configId } });
  }
  static versionNotSupported(version: string): A2AError {
    return new A2AError(ErrorCode.VersionNotSupported, `A2A version '${version}' is not supported by this handler. Expected version '1.0'.`, {
      metadata: { version },
    });
  }
}

/**
 * The gateway's own words for a call it could not finish, written in one place because a surface may show
 * them to a person in another language (the facade's words.ts).
 */
export const GATEWAY_FAILURES = {
  upstreamTimedOut: 'Upstream agent timed out',
  upstreamUnavailable: 'Upstream agent is unavailable',
  upstreamCallAborted: 'The upstream call was aborted',
  abortedOrTimedOut: 'The upstream call was aborted or timed out',
  shuttingDown: 'The gateway is shutting down',
  internal: 'Internal error',
  registryOutOfReach: 'The gateway cannot record tasks right now; try again in a moment',
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

/**
 * The codes of the gateway's errors and how each binding answers them (HTTP status, gRPC status, ErrorInfo
 * reason). Codes and reasons are A2A 1.0's (spec §3.3.2, §9.5); errors.ts holds the error type itself.
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

export interface CodeInfo {
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

/**
 * The domain of the gateway's own ErrorInfo reasons (A2AError.gatewayErrorInfo), for what A2A names no reason for:
 * a reason under A2A's domain would claim A2A defines it.
 */
export const GATEWAY_ERROR_DOMAIN = 'a2a-bridge';

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
export const REFUSED_FOR_NOW = {
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
export const HOP_FAILURES = {
  unavailable: { httpStatus: 503, grpcStatus: 'UNAVAILABLE' },
  timedOut: { httpStatus: 504, grpcStatus: 'DEADLINE_EXCEEDED' },
  /** A stream that went quiet past its bound: timed out to its caller, and, to the facade, a stream that broke off. */
  quiet: { httpStatus: 504, grpcStatus: 'DEADLINE_EXCEEDED' },
} as const satisfies Record<string, CodeInfo>;

export type HopFailure = keyof typeof HOP_FAILURES;

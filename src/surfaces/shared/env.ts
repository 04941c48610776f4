import type { Logger } from 'pino';
import type { CallTiming } from '../../core/agent-port.js';
import type { TaskStateReason } from '../../observability/metrics.js';

/** Per-request values every surface shares (Hono `c.var`). */
export interface GatewayEnv {
  Variables: {
    /** Owner scope set by the auth middleware ('' when gateway auth is off). */
    principal: string;
    /** The matched credential's client name (config), for logs, metrics and the turn cap; absent: unnamed. */
    client?: string;
    logger: Logger;
    /** Filled by handlers so the request log line can name them. */
    logFields: RequestLogFields;
    /** The trace context upstream calls carry (observability's tracing middleware); absent: none. */
    traceHeaders?: Readonly<Record<string, string>>;
    /** The request's upstream-time record (observability's metrics middleware); absent: not timed. */
    timing?: CallTiming;
    /**
     * An answer relayed as the agent sent it (the facade's pass-through) whose body was still coming when it was
     * returned, a stream or a unary answer over 64 KiB: the code of the JSON-RPC error it ended with (a stream's last
     * error event, the relay's cut; undefined: none), once it ended, which the metrics middleware counts it by instead
     * of `ok` as it opens.
     */
    relayedStreamError?: Promise<number | undefined>;
  };
}

export interface RequestLogFields {
  surface?: 'jsonrpc' | 'rest' | 'v025' | 'card' | 'health';
  method?: string;
  /** The caller's client name, when its credential has one. */
  client?: string;
  taskId?: string;
  contextId?: string;
  errorCode?: number;
  /**
   * Why a call failed that was no fault of the caller's (an upstream refused, reset, timed out or answered
   * 5xx; the answer's HTTP status, in any binding, 5xx): the cause's message, scrubbed of secrets. Its
   * presence is what puts the request line at warn (log.ts); a caller's own bad request never sets it.
   */
  cause?: string;
  /** The cause's error code, when it has one (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT). */
  causeCode?: string;
  /**
   * The task state of the answer, or of a stream's first event (on its request line, written as the headers
   * go out); of a facade `message/send`, the 0.2.5 state its Task was answered with (`failed`); for a stream's
   * `stream ended` line, the last state its caller was sent (1.0: call-pipeline.ts) or its user was shown
   * (facade, noted at its end).
   */
  state?: string;
  /** Why the gateway, not the agent, answered a facade turn `failed` (metrics' TaskStateReason). */
  stateReason?: TaskStateReason;
  /**
   * `caller_left`: the caller hung up before its answer and that ended the call (call-pipeline.ts); it was
   * answered 499 for nobody, as the `stream ended` line says of a stream it left (stream-end-log.ts).
   */
  ended?: 'caller_left';
}

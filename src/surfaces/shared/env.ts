import type { Logger } from 'pino';
import type { CallTiming } from '../../core/agent-port.js';

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
  /** The task state of the answer, or of a stream's first event. */
  state?: string;
}

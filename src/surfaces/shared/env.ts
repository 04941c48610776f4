import type { Logger } from 'pino';

/** Per-request values every surface shares (Hono `c.var`). */
export interface GatewayEnv {
  Variables: {
    /** Owner scope set by the auth middleware ('' when gateway auth is off). */
    principal: string;
    logger: Logger;
    /** Filled by handlers so the request log line can name them. */
    logFields: RequestLogFields;
  };
}

export interface RequestLogFields {
  surface?: 'jsonrpc' | 'rest' | 'v025' | 'card' | 'health';
  method?: string;
  taskId?: string;
  contextId?: string;
  errorCode?: number;
}

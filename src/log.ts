import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { GatewayConfig } from './config/schema.js';
import type { GatewayEnv } from './surfaces/shared/env.js';

export type LogLevel = GatewayConfig['log-level'];

const SECRET_KEYS = [
  'token',
  'password',
  'secret',
  'credentials',
  'authorization',
  '"api-key"',
  'apiKey',
  '"basic-password"',
  '"push-keys"',
];

/**
 * Secret-bearing keys at the top level and up to three objects deep (the redaction paths have no
 * recursive wildcard), which covers a logged config (`config.upstream.auth.token`) and request errors.
 */
const REDACT_PATHS = [
  ...SECRET_KEYS.flatMap((key) => {
    const access = key.startsWith('"') ? `[${key}]` : `.${key}`;
    return [key.startsWith('"') ? `[${key}]` : key, `*${access}`, `*.*${access}`, `*.*.*${access}`];
  }),
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'headers.authorization',
  'headers["x-api-key"]',
];

/** The gateway's logger: JSON lines on stdout (or `destination`), secrets censored. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type LogFields = GatewayEnv['Variables']['logFields'];

/** A sane inbound `X-Request-Id`, else a fresh one. */
function requestIdOf(c: Context<GatewayEnv>): string {
  const inbound = c.req.header('x-request-id');
  return inbound && REQUEST_ID.test(inbound) ? inbound : randomUUID();
}

/** The request line: method and path only, never the query string (it may carry keys) nor headers. */
function requestLine(c: Context<GatewayEnv>, started: number, fields: LogFields): Record<string, unknown> {
  return {
    httpMethod: c.req.method,
    path: c.req.path,
    status: c.res.status,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    ...(c.res.headers.get('content-type')?.startsWith('text/event-stream') ? { stream: true } : {}),
    ...fields,
    ...(c.error ? { err: c.error } : {}),
  };
}

/**
 * Gives each request a child logger (with `reqId`, reusing a sane inbound `X-Request-Id`) and an empty
 * `logFields` for handlers to fill, then writes ONE line per request once the handler returned its
 * Response. For a stream that is when the response headers go out (status 200, `stream: true`): the
 * line measures time to first byte, not the stream's lifetime; the stream's end is not logged here.
 *
 * Above `info` no request line is written except a failed request's (5xx, at `error`), so the
 * per-request child logger and its redaction are skipped: handlers log through the gateway's logger.
 */
export function requestLogger(logger: Logger): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    if (!logger.isLevelEnabled('info')) {
      const fields: LogFields = {};
      c.set('logger', logger);
      c.set('logFields', fields);
      if (!logger.isLevelEnabled('error')) return next();
      const started = performance.now();
      await next();
      if (c.res.status >= 500) logger.child({ reqId: requestIdOf(c) }).error(requestLine(c, started, fields), 'request');
      return;
    }
    const started = performance.now();
    const child = logger.child({ reqId: requestIdOf(c) });
    const fields: LogFields = {};
    c.set('logger', child);
    c.set('logFields', fields);

    await next();

    const line = requestLine(c, started, fields);
    if (c.res.status >= 500) child.error(line, 'request');
    else child.info(line, 'request');
  };
}

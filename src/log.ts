import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { GatewayConfig } from './config/schema.js';
import { HEALTH_PATH, READY_PATH } from './gateway-routes.js';
import { withoutUrlCredentials } from './url-credentials.js';
import type { GatewayEnv } from './surfaces/shared/env.js';
import { logStreamEnd } from './observability/stream-end-log.js';
import { stdoutDestination } from './stdout-destination.js';

export type LogLevel = GatewayConfig['log-level'];
export type LogFormat = GatewayConfig['log-format'];

const SECRET_KEYS = ['token', 'password', 'secret', 'credentials', 'authorization', '"api-key"', 'apiKey', '"basic-password"', '"push-keys"'];

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

/** A key whose value is a credential, wherever it sits in an error: the redaction paths stop three levels down. */
const SECRET_FIELD = /token|password|passwd|secret|credential|authorization|api[-_]?key|cookie/i;
const MAX_ERROR_DEPTH = 8;

/**
 * A serialized error with its credentials taken out, at any depth. ioredis puts a failed command on its
 * error (`command: { name, args }`): a refused AUTH carries the Redis password, a failed write the value
 * written, so a command keeps its name only.
 */
function scrubbedError(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return withoutUrlCredentials(value);
  if (typeof value !== 'object' || value === null || depth > MAX_ERROR_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => scrubbedError(item, depth + 1));
  const copy: Record<string, unknown> = {};
  // An error inside an error (ioredis's `previousErrors`, an aggregate's) keeps its message and stack.
  const fields = value instanceof Error ? stdSerializers.err(value) : value;
  for (const [key, inner] of Object.entries(fields)) {
    if (SECRET_FIELD.test(key) && inner !== undefined && inner !== null) copy[key] = '[redacted]';
    else if (key === 'command' && typeof inner === 'object' && inner !== null) copy[key] = { name: (inner as { name?: unknown }).name };
    else copy[key] = scrubbedError(inner, depth + 1);
  }
  return copy;
}

const urlField = (value: unknown): unknown => (typeof value === 'string' ? withoutUrlCredentials(value) : value);

/**
 * Errors (`err`, whatever their shape) and the URLs the gateway logs by name (`upstream`, `endpoint`,
 * `url`) are written without the credentials they may carry.
 */
const SERIALIZERS = {
  err: (error: unknown): unknown => scrubbedError(error),
  upstream: urlField,
  endpoint: urlField,
  url: urlField,
};

/** `auto` is pretty exactly when stdout is a terminal: a person reads it; a collector gets JSON. */
export function usesPretty(format: LogFormat, isTty = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && isTty);
}

/**
 * The gateway's logger: JSON lines on stdout (or `destination`), secrets censored; with a `pretty`
 * format (or `auto` on a terminal), one-line entries instead, written synchronously so the last lines
 * before an exit are not lost. They are coloured only on a terminal: `log-format: pretty` into a file or a
 * pipe (`| tee`, a journal) would otherwise carry ANSI escape codes that only a terminal reads.
 */
export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  format: LogFormat = 'json',
  isTty = process.stdout.isTTY === true,
): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: SERIALIZERS,
  };
  if (usesPretty(format, isTty)) {
    const stream = pretty({
      colorize: !destination && isTty,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      // An entry's fields on its own line, as the JSON format has them (an error's stack still spans lines).
      singleLine: true,
      ...(destination ? { destination } : {}),
    });
    return pino(options, stream);
  }
  return pino(options, destination ?? stdoutDestination());
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type LogFields = GatewayEnv['Variables']['logFields'];

/** A sane inbound `X-Request-Id`, else a fresh one. */
function requestIdOf(c: Context<GatewayEnv>): string {
  const inbound = c.req.header('x-request-id');
  return inbound && REQUEST_ID.test(inbound) ? inbound : randomUUID();
}

const isStream = (c: Context<GatewayEnv>): boolean => c.res.headers.get('content-type')?.startsWith('text/event-stream') === true;

/** The request line: method and path only, never the query string (it may carry keys) nor headers. */
function requestLine(c: Context<GatewayEnv>, started: number, fields: LogFields): Record<string, unknown> {
  return {
    httpMethod: c.req.method,
    path: c.req.path,
    status: c.res.status,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    ...(isStream(c) ? { stream: true } : {}),
    ...fields,
    ...(c.error ? { err: c.error } : {}),
  };
}

const PROBES: ReadonlySet<string> = new Set([HEALTH_PATH, READY_PATH]);

/** Requests answered as routinely as a probe (a metrics scrape: metrics-http.ts), by their Request: no middleware replaces it. */
const routine = new WeakSet<Request>();

/** Writes the request line of `c` at debug, as a probe's: for a scraper that asks every few seconds. */
export function logAsRoutine(c: Context): void {
  routine.add(c.req.raw);
}

/**
 * A probe (`/health`, `/ready`) comes every few seconds from every balancer and kubelet: its line is at debug,
 * failing or not, so probes do not flood the log (so is a metrics scrape answered: logAsRoutine); `/ready` turning
 * not ready, and ready again, is told once (surfaces/health.ts). A call that failed for a reason not the caller's (the handlers noted its `cause`: an
 * upstream refused, reset, timed out, answered 5xx) is a warning whatever its binding answered (HTTP 200 on
 * JSON-RPC and the facade, 503 or 504 on HTTP+JSON), so one outage is told alike on every binding; a 5xx
 * without such a cause is the gateway's own failure, at error.
 */
const levelOf = (c: Context<GatewayEnv>, fields: LogFields): 'error' | 'warn' | 'info' | 'debug' => {
  if (PROBES.has(c.req.path) || routine.has(c.req.raw)) return 'debug';
  if (fields.cause !== undefined) return 'warn';
  return c.res.status >= 500 ? 'error' : 'info';
};

/** `X-Request-Id` on the response, so a caller can quote it and find the log line. */
function echoRequestId(c: Context<GatewayEnv>, reqId: string): void {
  try {
    c.res.headers.set('x-request-id', reqId);
  } catch {
    // A Response relayed as it came (immutable headers) keeps its own.
  }
}

/** Pino's levels, each overridden on a lazy request logger (a level raised meanwhile is still written with `reqId`). */
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const REQ_ID = Symbol('reqId');
const MADE = Symbol('madeChild');

interface LazyRequestLogger {
  [REQ_ID]: string;
  [MADE]?: Logger;
}

/**
 * Request loggers for a level above info, each made only when it writes. Above info most requests write nothing, so
 * a pino child per request (its bindings serialized, its formatters rebuilt) would be made for nothing on the hot
 * path; but the lines a request does write there are its warnings and errors (a relayed answer cut, an unhandled
 * error), which an on-call engineer must tie to the request by its `reqId`. So a request gets a bare object
 * that inherits the root logger (its level, isLevelEnabled, streams) and holds only its `reqId`; its first line at
 * an enabled level, or a child asked of it, makes the real child (`{ reqId }`), which every later line goes through.
 * The overrides live once on a shared prototype: a request costs one small object.
 */
function lazyRequestLoggers(root: Logger): (reqId: string) => Logger {
  const childOf = (lazy: LazyRequestLogger): Logger => (lazy[MADE] ??= root.child({ reqId: lazy[REQ_ID] }));
  const shared = Object.create(root) as Record<string, unknown>;
  for (const level of LEVELS) {
    shared[level] = function (this: LazyRequestLogger, ...args: Parameters<Logger['warn']>): void {
      if (root.isLevelEnabled(level)) childOf(this)[level](...args);
    };
  }
  shared.child = function (this: LazyRequestLogger, ...args: Parameters<Logger['child']>) {
    return childOf(this).child(...args);
  };
  shared.bindings = function (this: LazyRequestLogger) {
    return childOf(this).bindings();
  };
  return (reqId) => {
    const lazy = Object.create(shared) as LazyRequestLogger;
    lazy[REQ_ID] = reqId;
    return lazy as unknown as Logger;
  };
}

/**
 * Gives each request a child logger (with `reqId`, reusing a sane inbound `X-Request-Id`, which is
 * echoed back as `X-Request-Id`) and an empty `logFields` for handlers to fill, then writes ONE line
 * per request once the handler returned its Response. For a stream that is when the response headers
 * go out (status 200, `stream: true`): the line measures time to first byte, not the stream's lifetime;
 * at info a second line, `stream ended`, tells its end (observability/stream-end-log.ts).
 *
 * Above `info` no request line is written except a failed request's (a failure not the caller's, at `warn`;
 * another 5xx, at `error`; a probe's at `debug`), nor a `stream ended` line but one at `warn`: the request's
 * logger is then a lazy one (lazyRequestLoggers), whose child is made only when a line is written.
 */
export function requestLogger(logger: Logger): MiddlewareHandler<GatewayEnv> {
  const lazyLogger = lazyRequestLoggers(logger);
  return async (c, next) => {
    const reqId = requestIdOf(c);
    if (!logger.isLevelEnabled('info')) {
      const fields: LogFields = {};
      const requestLog = lazyLogger(reqId);
      c.set('logger', requestLog);
      c.set('logFields', fields);
      const started = performance.now();
      await next();
      echoRequestId(c, reqId);
      const level = levelOf(c, fields);
      if (level !== 'info' && logger.isLevelEnabled(level)) requestLog[level](requestLine(c, started, fields), 'request');
      // A stream that ends for a cause not its caller's is told at warn (stream-end-log.ts).
      if (isStream(c) && logger.isLevelEnabled('warn')) logStreamEnd(c.res, requestLog, started, fields);
      return;
    }
    const started = performance.now();
    const child = logger.child({ reqId });
    const fields: LogFields = {};
    c.set('logger', child);
    c.set('logFields', fields);

    await next();

    echoRequestId(c, reqId);
    child[levelOf(c, fields)](requestLine(c, started, fields), 'request');
    if (isStream(c)) logStreamEnd(c.res, child, started, fields);
  };
}

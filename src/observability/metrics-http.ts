import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { GatewayConfig } from '../config/schema.js';
import type { GatewayEnv, RequestLogFields } from '../surfaces/shared/env.js';
import type { CallTiming } from '../core/agent-port.js';
import type { GatewayMetrics } from './metrics.js';
import { logAsRoutine } from '../log.js';
import { safeEqual } from '../surfaces/shared/safe-equal.js';
import { isStream, onBodyEnd, replaceResponse } from './body-end.js';
import { callerLeft } from './caller-left.js';
import { noteFacadeAnswer } from './facade-answer-log.js';
import { countFacadeAnswer, facadeEventCounter } from './facade-events.js';

/**
 * Counts every request by what the handlers noted for the log line (surface, method, error code) and
 * by the caller's client name, times blocking calls (and the share spent waiting on the upstream),
 * and for streams the time to their first event and how many are open. Must run inside the request
 * logger, which sets `logFields`; a facade `message/send` notes there the state it was answered with
 * (facade-answer-log.ts). `shutdown`: the gateway's, aborted once its drain time is over.
 */
export function metricsMiddleware(metrics: GatewayMetrics, shutdown?: AbortSignal): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const started = performance.now();
    const timing: CallTiming = { upstreamSeconds: 0 };
    c.set('timing', timing);
    await next();
    // c.get, not c.var: Hono builds a fresh object of every variable on each read of c.var.
    const fields = c.get('logFields') ?? {};
    const seconds = (performance.now() - started) / 1000;
    const client = c.get('client');
    const relayedStreamError = c.get('relayedStreamError');
    if (fields.ended === 'caller_left') metrics.callerLeft(fields.surface, fields.method, client);
    else if (relayedStreamError) countAtEnd(metrics, relayedStreamError, fields, c.res.status, client);
    else metrics.request(fields.surface, fields.method, c.res.status, fields.errorCode, client);
    if (isStream(c.res) && c.res.status === 200) {
      replaceResponse(c, observedStream(c.res, metrics, fields.surface, started, shutdown));
    } else if (fields.method) {
      metrics.blockingCall(fields.surface, fields.method, seconds, timing.upstreamSeconds);
      if (fields.surface !== 'v025' || fields.method !== 'message/send') return;
      const answer = countFacadeAnswer(metrics, c.res, shutdown, () => callerLeft(c), fields.stateReason);
      if (answer) await noteFacadeAnswer(c, answer, c.res);
    }
  };
}

/**
 * A relayed stream, counted by the error event it ended with once it ended (relayed-stream-errors.ts). A function of its
 * own, as observedStream is: a closure in the middleware would hold the Hono context as long as the stream is open.
 */
function countAtEnd(metrics: GatewayMetrics, ended: Promise<number | undefined>, fields: RequestLogFields, status: number, client?: string): void {
  void ended.then((code) => metrics.request(fields.surface, fields.method, status, code, client));
}

/**
 * The stream's response, its first event timed and its end counted. A function of its own, not closures in the
 * middleware: those would share its scope, and with it the Hono context (`() => callerLeft(c)` holds `c`), its
 * request and response, for as long as the stream is open (about 5 KB per idle stream, bench/README.md).
 * The headers may go out before the first event (an `: accepted` comment): the event itself is timed.
 */
function observedStream(res: Response, metrics: GatewayMetrics, surface: string | undefined, started: number, shutdown?: AbortSignal): Response {
  const opened = metrics.streamOpened(surface);
  // The facade's events are counted as its caller receives them (facade-events.ts), the 1.0 surfaces' at the port.
  const facade = surface === 'v025' ? facadeEventCounter(metrics, shutdown) : undefined;
  const closed = facade ? () => (facade.end(), opened()) : opened;
  return onBodyEnd(res, closed, () => metrics.firstStreamEvent(surface, (performance.now() - started) / 1000), facade?.frame);
}

/**
 * The scraper's Bearer token, compared over digests (safeEqual) so the time taken tells nothing of the
 * token's length or of a common prefix; the scheme name is case-insensitive (RFC 9110 §11.1).
 */
function tokenMatches(c: Context, token: string): boolean {
  const presented = /^bearer +(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
  return presented !== undefined && safeEqual(presented, token);
}

/**
 * `GET metrics.path` in Prometheus text format; with `metrics.token`, only for that bearer token. A scrape answered
 * is logged at debug, as a probe is (every scraper asks every few seconds); one refused its token stays at info.
 */
export function mountMetrics(app: Hono<GatewayEnv>, metrics: GatewayMetrics, config: GatewayConfig['metrics']): void {
  app.get(config.path, async (c) => {
    if (config.token && !tokenMatches(c, config.token)) {
      return c.text('Unauthorized\n', 401, { 'www-authenticate': 'Bearer realm="metrics"' });
    }
    const body = await metrics.registry.metrics();
    logAsRoutine(c);
    return c.body(body, 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  });
}

import { Agent, type Dispatcher } from 'undici';
import type { Credentials } from '../config/credentials-schema.js';
import type { UpstreamConfig } from '../config/schema.js';
import type { CallContext } from '../core/agent-port.js';
import { parseExtensionUris } from '../core/extension-uris.js';
import { requestUntilAborted } from './abortable-request.js';
import { connectionWaitBound } from './connection-wait.js';
import { keptOriginPool } from './kept-origin-pool.js';
import { throttledWarnings, type WarningLogger } from '../throttled-warnings.js';
import { upstreamTlsFiles } from './upstream-tls.js';

/**
 * The connection pool the gateway uses for one upstream agent. Its headers timeout
 * (`upstream.headers-timeout-ms`) bounds the wait for response headers of every request but a send
 * (headersTimeoutOf): a send's answer, headers included, may come only at the turn's end, so it is
 * bounded as a whole by `upstream.request-timeout-ms` instead (CallBound, a gRPC deadline). Once a
 * stream has started, it may stay quiet for as long as the agent thinks (a turn can run for minutes
 * between frames), so the body timeout is off and callers bound calls with their own AbortSignal
 * instead. The connection count is unlimited unless the operator caps it: each open stream holds a
 * connection for as long as it lasts, and a call that finds them all held waits for one at most
 * `upstream.queue-timeout-ms` (connection-wait.ts; `logger` is warned, at most once a minute). `upstream.socket-path` reaches an agent whose HTTP server
 * listens on a unix domain socket instead of a TCP port (a sidecar); `upstream.tls` gives the CA to
 * trust and the client certificate to present (mutual TLS); `upstream.keep-alive-ms` how long an idle
 * connection waits for the next call. Compressed bodies are decoded by their readers (decoded-body.ts).
 */
export function createUpstreamPool(config: UpstreamConfig, logger?: WarningLogger): Dispatcher {
  const socketPath = config['socket-path'];
  const pool = new Agent({
    // Each origin keeps one pool, which alone caps its connections: the Agent's own would drop it with calls queued.
    factory: keptOriginPool,
    // With a socket path every connection goes to that unix socket; the URL still gives Host and path.
    connect: { timeout: config['connect-timeout-ms'], ...(socketPath ? { socketPath } : {}), ...upstreamTlsFiles(config.tls) },
    headersTimeout: config['headers-timeout-ms'],
    bodyTimeout: 0,
    // null is undici's "no limit"; past a cap undici queues a request with no timeout of its own: bounded below.
    connections: config.connections || null,
    // Both: the bound holds for an agent that names its keep-alive too (undici takes the smaller then).
    keepAliveTimeout: config['keep-alive-ms'],
    keepAliveMaxTimeout: config['keep-alive-ms'],
  });
  // Without a cap nothing queues (each request is given a connection of its own, bounded by connect-timeout-ms).
  const waitMs = config['queue-timeout-ms'];
  if (!config.connections || waitMs === 0) return pool;
  // The operator's sign that the cap, not the agent, turns calls away: at most once a minute.
  const warn = throttledWarnings(logger);
  const refused = (): void =>
    warn({ connections: config.connections, queueTimeoutMs: waitMs }, 'upstream connections all in use; a call was refused');
  return pool.compose(connectionWaitBound(waitMs, refused));
}

/**
 * A unary request's undici `headersTimeout`. A send (each wire names its own: JsonRpcWire.sendMethod, the
 * HTTP+JSON `message:send` route, gRPC SendMessage) may be answered, headers included, only at the turn's end:
 * a2a-js answers a blocking send then, and a non-blocking one too when its executor publishes no Task or Message
 * first (a2a-js 0.2.5 going on with a task: upstream/v025/unstreamed-follow-up.ts). Its wait is 0, none of its own, the
 * caller's whole-call bound (`upstream.request-timeout-ms`, CallBound) ending it instead; any other call's is
 * null, the pool's `upstream.headers-timeout-ms`, so an agent that froze is given up on as soon as a stream is.
 */
export const headersTimeoutOf = (isSend: boolean): 0 | null => (isSend ? 0 : null);

/**
 * What every upstream request of one call adds to `headers`: the extensions the caller requested (in
 * the protocol version's `extensionsHeader`) and the call's W3C trace context, so the upstream joins
 * the caller's trace on every path.
 */
export function withCallHeaders(
  headers: Record<string, string>,
  ctx: Pick<CallContext, 'extensions' | 'traceHeaders'>,
  extensionsHeader: string,
): Record<string, string> {
  if (ctx.extensions && ctx.extensions.length > 0) headers[extensionsHeader] = ctx.extensions.join(', ');
  if (ctx.traceHeaders) Object.assign(headers, ctx.traceHeaders);
  return headers;
}

/**
 * Headers that authenticate the gateway to its upstream. Bearer wins over Basic when both are
 * configured (as iac-code's own client does); an API key is sent in addition to either.
 */
export function credentialHeaders(creds: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  if (creds.token) {
    headers.authorization = `Bearer ${creds.token}`;
  } else if (creds['basic-username'] && creds['basic-password']) {
    const pair = `${creds['basic-username']}:${creds['basic-password']}`;
    headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  }
  if (creds['api-key']) {
    headers[creds['api-key-header'].toLowerCase()] = creds['api-key'];
  }
  return headers;
}

/** The secret values in a credential set, so error text coming back from upstream can be scrubbed of them. */
export function credentialSecrets(creds: Credentials): string[] {
  return [creds.token, creds['basic-password'], creds['api-key']].filter((value): value is string => !!value);
}

/** A response header's first value, lower-cased ('' when absent): for comparing media types. */
export function headerValue(value: string | string[] | undefined): string {
  return ((Array.isArray(value) ? value[0] : value) ?? '').toLowerCase();
}

/**
 * Tells the call which extensions the upstream activated, from its response header: `A2A-Extensions`
 * (1.0) or `X-A2A-Extensions` (0.2.5/0.3), whichever the agent sent.
 */
export function reportActivatedExtensions(ctx: Pick<CallContext, 'onActivatedExtensions'>, headers: Dispatcher.ResponseData['headers']): void {
  if (!ctx.onActivatedExtensions) return;
  const raw = headers['a2a-extensions'] ?? headers['x-a2a-extensions'];
  const uris = parseExtensionUris(Array.isArray(raw) ? raw.join(',') : raw);
  if (uris.length > 0) ctx.onActivatedExtensions(uris);
}

/** Origin and path of the upstream URLs in use: a handful (the card's interfaces), parsed once each. */
const urlParts = new Map<string, { origin: string; path: string }>();
const MAX_PARSED_URLS = 1_000;

function partsOf(url: string): { origin: string; path: string } {
  let parts = urlParts.get(url);
  if (!parts) {
    const parsed = new URL(url);
    parts = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (urlParts.size >= MAX_PARSED_URLS) urlParts.clear();
    urlParts.set(url, parts);
  }
  return parts;
}

/**
 * An HTTP request on the upstream's pool, answered as soon as its signal fires even while it waits for
 * a connection (abortable-request.ts). undici's top-level `request(url, options)` parses the URL
 * and copies the options on every call, the copy with a hidden class of its own (see
 * src/model/with-fields.ts); the pool's own `request` is given origin and path directly.
 */
export function requestOn(
  dispatcher: Dispatcher,
  url: string,
  options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
): Promise<Dispatcher.ResponseData> {
  const { origin, path } = partsOf(url);
  return requestUntilAborted(dispatcher, { origin, path, ...options });
}

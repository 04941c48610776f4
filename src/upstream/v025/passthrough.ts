import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../../config/schema.js';
import { exactId, jsonRpcText, type JsonRpcId } from '../../protocol/jsonrpc-exact-ids.js';
import type { V025AgentCard } from '../../protocol/v025/index.js';
import { createUpstreamPool, credentialHeaders, requestOn } from '../http.js';
import { V025_SEND } from './errors.js';
import { fromTransportError, streamWentIdle } from '../upstream-errors.js';
import { createV025CardCache, type V025Dialect } from './card.js';
import { withFields, type A2AError } from '../../model/index.js';
import { webBody, type BrokenRelay, type IdleRelay } from './relayed-body.js';

export interface V025PassThroughOptions {
  /** Where the 0.2.5 agent lives (its card at `${baseUrl}/.well-known/agent.json`). */
  baseUrl: string;
  config: UpstreamConfig;
  /** Default '0.2.5'; '0.3' reads agent-card.json first (the JSON-RPC wire is the same). */
  dialect?: V025Dialect;
  /** A pool to share; without one the pass-through makes its own and closes it in close(). */
  dispatcher?: Dispatcher;
}

/**
 * A 0.2.5 facade in front of a 0.2.5 agent: no 0.2.5 → 1.0 → 0.2.5 round trip. The facade rewrites
 * the card and checks its own auth; the JSON-RPC exchange itself is relayed untouched.
 */
export interface V025PassThrough {
  /** The agent's own 0.2.5 card, validated and fetched fresh (the facade rewrites `url` and security). */
  card(signal?: AbortSignal): Promise<V025AgentCard>;
  /**
   * POST `body` (the caller's JSON-RPC request, as received) to the agent's endpoint and return its
   * answer as is: status, end-to-end headers and the body byte for byte, streamed as it arrives (SSE
   * included). Only allow-listed request headers travel; the caller's credentials for the facade
   * never do, the gateway's upstream credentials are added. When the caller goes away
   * (`request.signal`) or cancels the body, the upstream exchange is cut. An agent that cannot be
   * reached (or a caller gone before its answer) is thrown, as the A2AError the caller may read (its
   * `cause` the transport's, for the log): the facade answers it in the method's shape and notes it.
   */
  forward(request: Request, body: string, watch?: RelayWatch): Promise<Response>;
  close(): Promise<void>;
}

/** What the facade is told of a relayed body that the relay itself ended, once its answer has gone out. */
export interface RelayWatch {
  /** The agent sent nothing for `stream-idle-timeout-ms`, and its stream was ended with the relay's error frame (`error`'s words). */
  cutQuiet?(error: A2AError): void;
  /** The agent's body broke mid-way (its connection reset or closed): a stream then ends with the relay's error frame. */
  broke?(error: A2AError): void;
  /**
   * A body that is no stream (a unary answer over 64 KiB, handed on unchecked) broke or went quiet mid-way, after part
   * of it went out: whether the caller's connection was cut for it. Then the body is left unfinished, not failed: a
   * failed body is printed by the HTTP server, stack and all, outside the log, its words appended to what was sent.
   * False while the facade still reads the answer (nothing of it went out): the failure is then its caller's error answer.
   */
  cutMidway?(error: A2AError): boolean;
  /**
   * The same body (no stream) ended: read whole (no `failure`), cut by its caller, or failed (`failure`, the cut told to
   * cutMidway included). Once; a body read whole while the facade judged it has ended before the answer is returned.
   */
  ended?(failure?: A2AError): void;
}

/** Request headers that describe the exchange rather than the caller's identity. */
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'accept-language',
  'user-agent',
  'x-a2a-extensions',
  'a2a-extensions',
  'x-request-id',
  'traceparent',
  'tracestate',
];

/** Hop-by-hop (RFC 9110 §7.6.1) and framing headers: the relay re-frames the body itself. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);

function requestHeaders(incoming: Headers, credentials: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = incoming.get(name);
    if (value !== null) headers[name] = value;
  }
  headers['content-type'] ??= 'application/json';
  // Without Accept-Encoding any coding is acceptable (RFC 9110 §12.5.3): an agent that compressed its stream would
  // leave the relay's own error frame, written after its bytes when the relay cuts the stream, unreadable.
  headers['accept-encoding'] = 'identity';
  return withFields(headers, credentials);
}

function responseHeaders(raw: Dispatcher.ResponseData['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name.toLowerCase())) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** The relay's own 0.2.5 error frame, which ends a stream it cannot go on with. */
const errorFrame = (id: JsonRpcId, error: A2AError): Uint8Array =>
  new TextEncoder().encode(`data: ${jsonRpcText({ jsonrpc: '2.0' as const, id, error: { code: error.code, message: error.message } })}\n\n`);

/** A stream's bound on the agent's silence, and the 0.2.5 error frame that ends it (a JSON answer just fails). */
function relayIdle(ms: number, headers: Headers, id: JsonRpcId, watch: RelayWatch | undefined): IdleRelay {
  if (!(headers.get('content-type') ?? '').startsWith('text/event-stream')) return watch?.cutMidway ? { ms, cutMidway: watch.cutMidway } : { ms };
  const lastWords = errorFrame(id, streamWentIdle(ms));
  return watch?.cutQuiet ? { ms, lastWords, cut: watch.cutQuiet } : { ms, lastWords };
}

/** The caller's JSON-RPC id and method, as far as the body tells them. */
function requestFields(body: string): { id: JsonRpcId; method: unknown } {
  try {
    const { id, method } = JSON.parse(body) as { id?: unknown; method?: unknown };
    return { id: typeof id === 'string' || typeof id === 'number' ? exactId(id, body) : null, method };
  } catch {
    return { id: null, method: undefined };
  }
}

/**
 * The request's wait for response headers: a `message/send`'s answer, headers included, may come only at the
 * turn's end (headersTimeoutOf), so it waits up to `request-timeout-ms` (0: until the agent answers or the caller
 * leaves); every other call's, streams' and tasks/*' alike, is the pool's (`headers-timeout-ms`).
 */
function headersTimeoutFor(method: unknown, config: UpstreamConfig): number | null {
  return method === V025_SEND ? config['request-timeout-ms'] : null;
}

export function createV025PassThrough(options: V025PassThroughOptions): V025PassThrough {
  const { config } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const ownsPool = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createUpstreamPool(config);
  const credentials = credentialHeaders(config.auth);
  const cards = createV025CardCache(
    baseUrl,
    options.dialect ?? '0.2.5',
    { dispatcher, headers: credentials, timeoutMs: config['request-timeout-ms'] },
    undefined,
    config['card-origins'],
  );

  return {
    card: (signal) => cards.load(signal),

    async forward(incoming, body, watch) {
      const signal = incoming.signal;
      const { id, method } = requestFields(body);
      try {
        const endpoint = await cards.endpoint(signal);
        const answer = await requestOn(dispatcher, endpoint, {
          method: 'POST',
          headers: requestHeaders(incoming.headers, credentials),
          body,
          signal,
          headersTimeout: headersTimeoutFor(method, config),
        });
        const headers = responseHeaders(answer.headers);
        const idle = relayIdle(config['stream-idle-timeout-ms'], headers, id, watch);
        const broken: BrokenRelay = {
          callerLeft: () => signal.aborted,
          ...(idle.lastWords ? { lastWords: (error: A2AError) => errorFrame(id, error) } : {}),
          ...(watch?.broke ? { told: watch.broke } : {}),
          ...(!idle.lastWords && watch?.cutMidway ? { cutMidway: watch.cutMidway } : {}),
          ...(!idle.lastWords && watch?.ended ? { ended: watch.ended } : {}),
        };
        return new Response(webBody(answer.body, idle, broken), { status: answer.statusCode, headers });
      } catch (error) {
        // The gateway's words for the caller, which never name the upstream; the transport's as the cause, for the log.
        throw fromTransportError(error, { caller: signal });
      }
    },

    async close() {
      if (ownsPool) await dispatcher.close();
    },
  };
}

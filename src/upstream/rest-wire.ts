import type { Dispatcher } from 'undici';
import { withFields, A2AError } from '../model/index.js';
import { CallBound } from './call-bound.js';
import { reportActivatedExtensions, requestOn, headersTimeoutOf, withCallHeaders } from './http.js';
import { idleBound, type JsonRpcCallContext, type JsonRpcTransport } from './jsonrpc-client.js';
import { decodedBody } from './decoded-body.js';
import { NO_RESULT, streamedResults, type StreamWire } from './streamed-results.js';
import { bodyTellingSent } from './sent-body.js';
import { fromTransportError } from './upstream-errors.js';
import { fromRestError, type RestErrorContext } from './rest-errors.js';

/** What tells one version's HTTP+JSON binding from another's on the wire. */
export interface RestWire {
  /** Sent on every call. */
  headers: Readonly<Record<string, string>>;
  /** Where the caller's requested extensions go. */
  extensionsHeader: string;
}

/**
 * 0.3: no A2A-Version header (a server that speaks several versions takes a request without one for
 * 0.3, which is what this client speaks); extensions in `X-A2A-Extensions`.
 */
export const V03_REST_WIRE: RestWire = { headers: {}, extensionsHeader: 'x-a2a-extensions' };
export const V1_REST_WIRE: RestWire = { headers: { 'a2a-version': '1.0' }, extensionsHeader: 'a2a-extensions' };

/** One HTTP exchange with an HTTP+JSON agent (0.3 or 1.0). */
export interface RestCall {
  wire: RestWire;
  /** Pool, credentials and call bound of the upstream (shared with the JSON-RPC clients). */
  transport: JsonRpcTransport;
  method: 'GET' | 'POST' | 'DELETE';
  /** Absolute URL of the route. */
  url: string;
  /** Sent as JSON when present. */
  body?: unknown;
  ctx: JsonRpcCallContext;
  errors: RestErrorContext;
}

/** The unary send, `message:send` (headersTimeoutOf), in 1.0 and 0.3, under a tenant or not. */
const isSendRoute = (url: string): boolean => url.endsWith('/message:send');

/** The routes that carry the caller's message, in 1.0 and 0.3 (CallContext.onMessageSent). */
const carriesMessage = (url: string): boolean => isSendRoute(url) || url.endsWith('/message:stream');

const is2xx = (status: number): boolean => status >= 200 && status < 300;

async function send(call: RestCall, signal: AbortSignal | CallBound, accept: string): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = withFields(
    call.transport.authHeaders,
    withFields(call.wire.headers, { accept, 'accept-encoding': 'identity' }),
  );
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  withCallHeaders(headers, call.ctx, call.wire.extensionsHeader);
  const body = call.body === undefined ? null : JSON.stringify(call.body);
  const onSent = call.ctx.onMessageSent;
  const told = onSent && body !== null && carriesMessage(call.url) ? bodyTellingSent(body, onSent) : undefined;
  // A send may be answered only at the turn's end, bounded by `signal` (request-timeout-ms); any other call by the pool's wait for headers too.
  const request = { method: call.method, headers, body: told ?? body, signal, headersTimeout: headersTimeoutOf(isSendRoute(call.url)) };
  const response = await requestOn(call.transport.dispatcher, call.url, request);
  reportActivatedExtensions(call.ctx, response.headers);
  return response;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw A2AError.invalidAgentResponse('The upstream agent returned a response that is not JSON');
  }
}

/**
 * A unary call: the parsed JSON of a 2xx answer (undefined for an empty one, e.g. 204 on DELETE),
 * or the agent's error as an A2AError. Bounded by the upstream's request timeout.
 */
export async function callRest(call: RestCall): Promise<unknown> {
  const ms = call.transport.requestTimeoutMs;
  const bound = ms > 0 ? new CallBound(call.ctx.signal, ms) : undefined;
  try {
    const response = await send(call, bound ?? call.ctx.signal, 'application/json');
    const text = await decodedBody(response).text();
    if (!is2xx(response.statusCode)) throw fromRestError(response.statusCode, text, call.errors);
    return text.trim() === '' ? undefined : parseBody(text);
  } catch (error) {
    throw fromTransportError(error, { caller: call.ctx.signal, timedOut: bound?.timedOut ?? false });
  } finally {
    bound?.clear();
  }
}

const REST_STREAM: StreamWire<RestCall> = {
  requestId: () => '',
  post: (call) => send(call, call.ctx.signal, 'text/event-stream'),
  // An error answered before the stream is the agent's; a 2xx JSON answer instead of a stream is its only event.
  whole: (statusCode, text, _id, call) => {
    if (!is2xx(statusCode)) throw fromRestError(statusCode, text, call.errors);
    return parseBody(text);
  },
  frame: (message, _id, call) => {
    if (message.event === 'error') throw fromRestError(500, message.data, call.errors);
    return message.data.trim() === '' ? NO_RESULT : parseBody(message.data);
  },
  idle: (call) => idleBound(call.transport),
};

const asIs = (value: unknown): unknown => value;

/**
 * A streaming call (`message:stream`, `tasks/{id}:subscribe`): `toEvent` of each SSE frame's parsed `data`, as the
 * agent sent it, or nothing for those it maps to undefined. An `event: error` frame, or an error answered before the
 * stream, is thrown as an A2AError; a 2xx JSON answer instead of a stream is taken as its only event. Leaving early or
 * aborting ctx.signal destroys the response, which closes its connection. A Stage over the SSE reader
 * (streamed-results.ts): the layers above read the reader through it.
 */
export function streamRest(call: RestCall): AsyncIterableIterator<unknown>;
export function streamRest<T>(call: RestCall, toEvent: (value: unknown) => T | undefined): AsyncIterableIterator<T>;
export function streamRest(call: RestCall, toEvent: (value: unknown) => unknown = asIs): AsyncIterableIterator<unknown> {
  return streamedResults(REST_STREAM, call, toEvent);
}

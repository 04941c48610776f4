import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../config/schema.js';
import type { CallContext } from '../core/agent-port.js';
import { withFields, A2AError, ErrorCode, GATEWAY_FAILURES, upstreamAnsweredHttp, type StreamResponse } from '../model/index.js';
import { CallBound } from './call-bound.js';
import { decodedBody } from './decoded-body.js';
import {
  createUpstreamPool,
  credentialHeaders,
  credentialSecrets,
  headersTimeoutOf,
  reportActivatedExtensions,
  requestOn,
  withCallHeaders,
} from './http.js';
import type { IdleBound, SseMessage } from './sse-reader.js';
import { streamedResults, type StreamWire } from './streamed-results.js';
import { bodyTellingSent } from './sent-body.js';
import {
  CONTENT_TOO_LARGE,
  credentialsRefused,
  fromJsonRpcError,
  fromTransportError,
  refusesCredentials,
  streamWentIdle,
  tooLargeForAgent,
} from './upstream-errors.js';
import { streamEvent } from './v1/methods.js';
import { isWellFormedStreamEvent } from '../model/well-formed.js';
import { checkedResult, type ResultCheck } from './validate-result.js';
import { isRecord } from '../model/json.js';

/**
 * What differs between A2A versions on the JSON-RPC wire besides method names and shapes: the
 * headers every call carries and how an upstream's error object becomes an A2AError.
 */
export interface JsonRpcWire {
  /** Sent on every call (`A2A-Version: 1.0`; nothing for a 0.2.5 or 0.3 agent). */
  headers: Readonly<Record<string, string>>;
  /** Where requested extension URIs go: `a2a-extensions` in 1.0, `x-a2a-extensions` before. */
  extensionsHeader: string;
  /** An upstream JSON-RPC error object → a scrubbed A2AError. */
  fromError(error: unknown, secrets: readonly string[]): A2AError;
  /** The wire's send, whose answer may come only at the turn's end (headersTimeoutOf). */
  sendMethod: string;
}

export const V1_WIRE: JsonRpcWire = {
  headers: { 'a2a-version': '1.0' },
  extensionsHeader: 'a2a-extensions',
  fromError: fromJsonRpcError,
  sendMethod: 'SendMessage',
};

/** How to reach one upstream: shared by every call to it. */
export interface JsonRpcTransport {
  dispatcher: Dispatcher;
  /** Credential headers sent on every call (see credentialHeaders). */
  authHeaders: Record<string, string>;
  /** Secret values scrubbed from upstream error text. */
  secrets: readonly string[];
  /** Whole-call bound of unary calls in ms; 0 disables it. Streams are bounded by ctx.signal and their silence. */
  requestTimeoutMs: number;
  /** How long a stream's body may send nothing at all (`stream-idle-timeout-ms`); absent or 0: no bound. */
  streamIdleMs?: number;
  /** The protocol version's headers and errors; default A2A 1.0. */
  wire?: JsonRpcWire;
}

/**
 * The transport to one upstream from its config: a pool of its own unless one is shared, and the
 * credentials. `close()` releases the pool only when it was created here.
 */
export function createJsonRpcTransport(
  config: UpstreamConfig,
  options: { dispatcher?: Dispatcher; wire?: JsonRpcWire } = {},
): JsonRpcTransport & { close(): Promise<void> } {
  const dispatcher = options.dispatcher ?? createUpstreamPool(config);
  return {
    dispatcher,
    authHeaders: credentialHeaders(config.auth),
    secrets: credentialSecrets(config.auth),
    requestTimeoutMs: config['request-timeout-ms'],
    streamIdleMs: config['stream-idle-timeout-ms'],
    ...(options.wire ? { wire: options.wire } : {}),
    close: async () => {
      if (!options.dispatcher) await dispatcher.close();
    },
  };
}

/** A stream's bound on its body's silence (`stream-idle-timeout-ms`), none when unset or 0. */
export function idleBound(transport: JsonRpcTransport): IdleBound | undefined {
  const ms = transport.streamIdleMs ?? 0;
  return ms > 0 ? { ms, error: () => streamWentIdle(ms) } : undefined;
}

export type JsonRpcCallContext = Pick<
  CallContext,
  'signal' | 'extensions' | 'onActivatedExtensions' | 'onAccepted' | 'onMessageSent' | 'traceHeaders'
>;

export interface JsonRpcCall {
  transport: JsonRpcTransport;
  endpoint: string;
  method: string;
  params: unknown;
  ctx: JsonRpcCallContext;
}

type Envelope = Record<string, unknown>;

// The gateway's own request ids: a caller's id never reaches the upstream, so a response can only
// match the request it answers.
let lastRequestId = 0;
const nextRequestId = (): string => `a2a-bridge-${++lastRequestId}`;

/** Per transport and Accept value, the headers every call sends, built once. */
const baseHeaderCache = new WeakMap<JsonRpcTransport, Map<string, Record<string, string>>>();

function baseHeaders(transport: JsonRpcTransport, wire: JsonRpcWire, accept: string): Record<string, string> {
  let byAccept = baseHeaderCache.get(transport);
  if (!byAccept) {
    byAccept = new Map();
    baseHeaderCache.set(transport, byAccept);
  }
  let headers = byAccept.get(accept);
  if (!headers) {
    headers = Object.freeze(
      withFields(transport.authHeaders, withFields(wire.headers, { 'content-type': 'application/json', accept, 'accept-encoding': 'identity' })),
    );
    byAccept.set(accept, headers);
  }
  return headers;
}

async function post(call: JsonRpcCall, id: string, signal: AbortSignal | CallBound, accept: string): Promise<Dispatcher.ResponseData> {
  const wire = call.transport.wire ?? V1_WIRE;
  const base = baseHeaders(call.transport, wire, accept);
  // undici does not change the headers it is given: a call that adds none shares the transport's object.
  const headers =
    call.ctx.extensions?.length || call.ctx.traceHeaders ? withCallHeaders(withFields(base, {}), call.ctx, wire.extensionsHeader) : base;
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params: call.params ?? {} });
  const onSent = call.ctx.onMessageSent;
  const told = onSent && MESSAGE_METHODS.has(call.method) ? bodyTellingSent(body, onSent) : undefined;
  // A send may be answered only at the turn's end, bounded by `signal` (request-timeout-ms); any other call by the pool's wait for headers too.
  const request = { method: 'POST' as const, headers, body: told ?? body, signal, headersTimeout: headersTimeoutOf(call.method === wire.sendMethod) };
  const response = await requestOn(call.transport.dispatcher, call.endpoint, request);
  reportActivatedExtensions(call.ctx, response.headers);
  return response;
}

/** The methods that carry the caller's message, in 1.0 and in 0.2.5/0.3 (CallContext.onMessageSent). */
const MESSAGE_METHODS: ReadonlySet<string> = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A JSON-RPC 2.0 response envelope: a result or an error. */
export function isJsonRpcResponse(value: unknown): value is Envelope {
  return isRecord(value) && value.jsonrpc === '2.0' && ('result' in value || 'error' in value);
}

/**
 * An agent's answer that is no JSON-RPC response (an HTML page from a proxy, an empty 500, ...): named by
 * its HTTP status when that is not 2xx, which says more than the body, which is never repeated (it may
 * hold a stack trace or internal host names). The 0.2.5 relay reports such answers with the same words.
 * A 413 is no fault of the agent's but the caller's request too large for it (tooLargeForAgent); a 401/403, the
 * gateway's credentials refused (credentialsRefused).
 */
export function notJsonRpcAnswer(statusCode: number): A2AError {
  if (statusCode >= 200 && statusCode < 300) return A2AError.invalidAgentResponse(GATEWAY_FAILURES.notJsonRpcAnswer);
  if (statusCode === CONTENT_TOO_LARGE) return tooLargeForAgent();
  if (refusesCredentials(statusCode))
    return credentialsRefused(statusCode, `${upstreamAnsweredHttp(statusCode)}: the gateway's credentials were refused (upstream.auth)`);
  return new A2AError(ErrorCode.InvalidAgentResponse, upstreamAnsweredHttp(statusCode), { agentHttpStatus: statusCode });
}

/**
 * The result of a JSON-RPC response to request `id`, or its error thrown as an A2AError. An error
 * may carry id null (the server could not read the request); a result must carry our id.
 */
function settle(envelope: Envelope, id: string, transport: JsonRpcTransport): unknown {
  if ('error' in envelope && envelope.error !== undefined && envelope.error !== null) {
    if (envelope.id !== id && envelope.id !== null) throw A2AError.invalidAgentResponse(GATEWAY_FAILURES.answeredAnotherRequest);
    throw (transport.wire ?? V1_WIRE).fromError(envelope.error, transport.secrets);
  }
  if (envelope.id !== id) throw A2AError.invalidAgentResponse(GATEWAY_FAILURES.answeredAnotherRequest);
  return envelope.result;
}

/** Settle a whole (non-SSE) response body. */
function settleBody(statusCode: number, text: string, id: string, transport: JsonRpcTransport): unknown {
  // A refusal of the gateway's credentials, whatever error its body names (an auth layer's -32603, say), is told as one.
  if (refusesCredentials(statusCode)) throw notJsonRpcAnswer(statusCode);
  const envelope = parseJson(text);
  if (!isJsonRpcResponse(envelope)) throw notJsonRpcAnswer(statusCode);
  const result = settle(envelope, id, transport);
  if (statusCode < 200 || statusCode >= 300) throw notJsonRpcAnswer(statusCode);
  return result;
}

/** One unary JSON-RPC call: the result checked by `check` (validate-result.ts), or an A2AError. */
export async function callJsonRpc<T>(call: JsonRpcCall, check: ResultCheck<T>): Promise<T> {
  const id = nextRequestId();
  const ms = call.transport.requestTimeoutMs;
  const bound = ms > 0 ? new CallBound(call.ctx.signal, ms) : undefined;
  try {
    const response = await post(call, id, bound ?? call.ctx.signal, 'application/json');
    const text = await decodedBody(response).text();
    const result = settleBody(response.statusCode, text, id, call.transport);
    return checkedResult(check, result, `${call.method} result`);
  } catch (error) {
    throw fromTransportError(error, { caller: call.ctx.signal, timedOut: bound?.timedOut ?? false });
  } finally {
    bound?.clear();
  }
}

/** `{}`: a frame that carries nothing (an SDK completion marker). */
export const isEmptyResult = (result: unknown): boolean => isRecord(result) && Object.keys(result).length === 0;

/** The result of one SSE frame, whatever the A2A version; its error thrown as an A2AError. */
function frameResult(message: SseMessage, id: string, transport: JsonRpcTransport): unknown {
  const envelope = parseJson(message.data);
  if (!isJsonRpcResponse(envelope)) {
    throw A2AError.invalidAgentResponse(GATEWAY_FAILURES.notJsonRpcStreamEvent);
  }
  if (message.event === 'error' && !isRecord(envelope.error)) {
    throw A2AError.invalidAgentResponse(GATEWAY_FAILURES.malformedErrorEvent);
  }
  return settle(envelope, id, transport);
}

/**
 * How a streaming JSON-RPC call is sent and its answer read (streamed-results.ts): the request is sent on the first
 * read. Leaving early or aborting ctx.signal destroys the upstream response, which closes its connection. A clean end
 * of the body ends the iteration (the core decides whether the turn was complete); a broken connection throws.
 */
const JSON_RPC_STREAM: StreamWire<JsonRpcCall> = {
  requestId: nextRequestId,
  post: (call, id) => post(call, id, call.ctx.signal, 'text/event-stream, application/json'),
  // Errors found before the first event come as one plain JSON-RPC response (HTTP 200).
  whole: (statusCode, text, id, call) => settleBody(statusCode, text, id, call.transport),
  frame: (message, id, call) => frameResult(message, id, call.transport),
  idle: (call) => idleBound(call.transport),
};

const asIs = (result: unknown): unknown => result;

/** A streaming JSON-RPC call yielding each event's raw `result` (any A2A version; the caller validates and translates). */
export function streamJsonRpcResults(call: JsonRpcCall): AsyncIterableIterator<unknown> {
  return streamedResults(JSON_RPC_STREAM, call, asIs);
}

/**
 * A 1.0 event as relayed: checked as a StreamResponse (streamEvent), or undefined for a frame that
 * carries nothing: iac-code ends a permission-answer stream with an empty `{"result":{}}` (an SDK
 * completion marker). A well-formed event is passed first, before any other look at it: the hot path.
 */
function toStreamEvent(result: unknown): StreamResponse | undefined {
  if (isWellFormedStreamEvent(result)) return result;
  return isEmptyResult(result) ? undefined : streamEvent(result);
}

/** A streaming JSON-RPC call to a 1.0 agent (SendStreamingMessage, SubscribeToTask): the bottom of the stream's run of layers. */
export function streamJsonRpc(call: JsonRpcCall): AsyncIterableIterator<StreamResponse> {
  return streamedResults(JSON_RPC_STREAM, call, toStreamEvent);
}

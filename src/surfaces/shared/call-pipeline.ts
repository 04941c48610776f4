import type { Context } from 'hono';
import { mapIterable } from '../../core/iterables.js';
import { withFields, A2AError, answerTaskRef, toA2AError, type StreamResponse } from '../../model/index.js';
import type { V1Method } from '../../mappings/vocabulary.js';
import { isStream } from '../../observability/body-end.js';
import { callerLeft } from '../../observability/caller-left.js';
import type { GatewayEnv, RequestLogFields } from './env.js';
import { contentCodingRefusal, discardRest, refusedBody, tooLarge } from './body-refusal.js';
import { StreamCut } from './cut-stream.js';
import { echoExtensions, type ExtensionsHeader } from './extensions-header.js';
import { noteFailure, noteLog } from './log-fields.js';
import { outlivesCaller, prepareCall, type OperationEnv } from './operations.js';
import { portCall, type PortCall, type PortCallOptions } from './port-call.js';
import { sseResponse, type SseFrame } from './sse.js';
import { openV1Stream, STREAM_ACCEPTED_COMMENT, type OpenedStream } from './stream-open.js';
import { readerOf } from '../../own-class-reads.js';

/** What a call's answer reads of the config, the same on every HTTP edge. */
export interface CallOptions {
  /** `keepalive-ms`: the SSE ping interval (0: none). */
  keepaliveMs: number;
  /** `upstream.first-event-timeout-ms`: how long a stream may take for its first event. */
  firstEventTimeoutMs: number;
  /** `max-body-bytes`. */
  maxBodyBytes: number;
}

/** One edge (1.0 JSON-RPC, HTTP+JSON, the 0.2.5 facade): how its calls are logged, opened and failed. */
export interface CallEdge<I> {
  /** The request log's `surface`, also the CallContext's. */
  surface: 'jsonrpc' | 'rest' | 'v025';
  /** Where the upstream's activated extensions are echoed. */
  extensionsHeader: ExtensionsHeader;
  /** Aborted (reason: the error to report) when the gateway shuts down. */
  shutdown?: AbortSignal;
  /** Anything thrown before the answer began, as this edge's error answer. */
  errorResponse(error: A2AError, input: I): Response;
}

/** The port call of one request, opened by the dialect once it knows the call will reach the port. */
export interface OpenCall extends PortCall {
  /** The response with the upstream's activated extensions echoed in the edge's header. */
  answer(response: Response): Response;
}

/**
 * One request through an edge: its method goes on the log line; `serve` checks what it must, opens the
 * port call (`open`, at most once: a refused request never creates one) and answers; whatever it throws is
 * logged with its code and answered in the edge's form; the port call is released when the handler
 * returns (an open stream's SSE writer follows the shutdown from then on).
 */
export async function runCall<I>(
  c: Context<GatewayEnv>,
  edge: CallEdge<I>,
  input: I,
  method: string,
  serve: (open: (options?: PortCallOptions) => OpenCall) => Promise<Response>,
): Promise<Response> {
  noteLog(c, { surface: edge.surface, method });
  let opened: PortCall | undefined;
  const open = (options?: PortCallOptions): OpenCall => {
    const call = portCall(c, edge.surface, edge.shutdown, options);
    opened = call;
    return withFields(call, { answer: (response: Response) => echoExtensions(response, call.activated(), edge.extensionsHeader) });
  };
  try {
    const response = await serve(open);
    // A blocking answer made after its caller hung up (a 1.0 SendMessage's turn goes on without it) reached nobody:
    // told as one, not as a 200. The facade tells its own send's in the answer (stateReason, facade-answer-log.ts).
    if (edge.surface !== 'v025' && !isStream(response) && callerLeft(c)) return callerLeftAnswer(c);
    return response;
  } catch (error) {
    // Its caller hung up, and that ended the call (its body cut off, its signal aborted, or the call taken on without
    // it: port-call.ts onClientGone): nothing failed, nobody reads an answer.
    if ((error instanceof BodyCut || opened?.clientLeft()) && callerLeft(c)) return callerLeftAnswer(c);
    const a2aError = toA2AError(error);
    noteFailure(c, a2aError);
    return edge.errorResponse(a2aError, input);
  } finally {
    opened?.release();
  }
}

/** nginx's "Client Closed Request", which operators know from its access logs. */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * The answer to a call whose caller hung up before it: 499 for nobody, so that its request line (`ended:
 * caller_left`, no error code, at info), its trace span and the metrics (`outcome="caller_left"`) tell the caller
 * leaving apart from the gateway failing (an error answer would be a -32603 or an HTTP 500 nobody received).
 */
export function callerLeftAnswer(c: Context<GatewayEnv>): Response {
  noteLog(c, { ended: 'caller_left' });
  return new Response(null, { status: CLIENT_CLOSED_REQUEST });
}

/** How a 1.0 edge reads a call and writes its answers. */
export interface OperationWire<I> {
  /** The operation and its params; throws the refusals that come before the port (version, Content-Type, a bad path). */
  parse(input: I, c: Context<GatewayEnv>): { method: V1Method; params: unknown } | Promise<{ method: V1Method; params: unknown }>;
  /** A unary result as the response. */
  result(result: unknown, input: I): Response;
  /** One stream event as its SSE frame. */
  frame(event: StreamResponse, input: I): SseFrame;
  /** A failure once the stream is open, as its last frame. */
  errorFrame(error: A2AError, input: I): SseFrame;
}

/**
 * The `serve` of a 1.0 edge: parse, open the port call, validate and bind the operation (operations.ts),
 * then the unary result, or the stream opened at its first event (stream-open.ts) and relayed as SSE.
 */
export function operationCall<I>(
  wire: OperationWire<I>,
  env: (c: Context<GatewayEnv>) => OperationEnv,
  options: CallOptions & { shutdown?: AbortSignal },
): (input: I, c: Context<GatewayEnv>, open: (options?: PortCallOptions) => OpenCall) => Promise<Response> {
  return async (input, c, open) => {
    const { method, params } = await wire.parse(input, c);
    const call = open({ outlivesCaller: outlivesCaller(method) });
    const prepared = prepareCall(method, params, env(c));
    noteLog(c, prepared.ref);
    if (prepared.kind === 'unary') {
      const result = await prepared.run(call.ctx);
      noteLog(c, answerTaskRef(result));
      return call.answer(wire.result(result, input));
    }
    const opened = await openV1Stream(prepared.run, call, options.firstEventTimeoutMs);
    noteLog(c, answerTaskRef(opened.first));
    const streamOptions = withFields(options, { sentMessage: method === 'SendStreamingMessage', logFields: c.get('logFields') });
    return call.answer(streamAnswer(opened, input, wire, call, streamOptions));
  };
}

/**
 * A stream's SSE answer; the call's signal aborts when the client goes away, `abort` ends the upstream
 * call. Nothing here holds the Hono context: an open stream would keep it alive, and the request's log
 * line was written when the headers went out.
 */
function streamAnswer<I>(
  opened: OpenedStream,
  input: I,
  wire: OperationWire<I>,
  call: PortCall,
  options: { keepaliveMs: number; shutdown?: AbortSignal; sentMessage: boolean; logFields?: RequestLogFields },
): Response {
  const cut = new StreamCut(options.sentMessage);
  const { logFields } = options;
  return sseResponse(
    mapIterable(opened.events, (event) => {
      const state = cut.seen(event);
      // The last state its caller was sent, for the stream's `stream ended` line (its request line has the first's).
      if (state !== undefined && logFields) logFields.state = state;
      return wire.frame(event, input);
    }),
    {
      keepaliveMs: options.keepaliveMs,
      signal: call.ctx.signal,
      shutdown: options.shutdown,
      onCancel: call.abort,
      onError: (error) => wire.errorFrame(cut.ending(toA2AError(error)), input),
      ...(opened.quiet ? { comment: STREAM_ACCEPTED_COMMENT } : {}),
    },
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request's body that stopped before its end: its connection closed (the caller hung up mid-upload) or failed.
 * Not the caller's bad input, nor the gateway failing: with the caller gone it is answered as its leaving.
 */
export class BodyCut extends Error {
  constructor(cause: unknown) {
    super('The request body ended before it was all received', { cause });
  }
}

/** The declared Content-Length, or undefined when the body is chunked (or the value is not a length). */
function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  if (value === null) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** A refused body read off and dropped (body-refusal.ts discardRest): true once it has ended. */
const discardBody = async (request: Request): Promise<boolean> => (request.body ? discardRest(request.body.getReader()) : true);

/**
 * A body of unknown length, read chunk by chunk and refused as soon as it passes `maxBytes` (then -32600
 * is thrown): the rest is read off and dropped first, within a bound (body-refusal.ts).
 */
async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array> {
  const body: ReadableStream<Uint8Array> | null = request.body;
  if (!body) return new Uint8Array(0);
  const reader = readerOf(body);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) throw refusedBody(request, 'too-large', tooLarge(), await discardRest(reader));
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The request body as text, read once and never past `maxBytes` (a declared Content-Length over the
 * limit is refused before reading). Throws -32005 for a body sent with a content coding (HTTP 415),
 * -32600 when too large, -32700 when not UTF-8, BodyCut when the body stops coming before its end.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  let bytes: Uint8Array;
  // One try around the reading, not a promise wrapped around it: a failure of the transport under the body (not a
  // refusal of ours) is BodyCut.
  try {
    const codingRefusal = contentCodingRefusal(request.headers);
    if (codingRefusal) throw refusedBody(request, 'content-coding', codingRefusal, await discardBody(request));
    const declared = declaredLength(request.headers);
    if (declared !== undefined && declared > maxBytes) throw refusedBody(request, 'too-large', tooLarge(), await discardBody(request));
    // With a declared length the HTTP parser already bounds the body, and arrayBuffer() lets
    // @hono/node-server read it straight off the socket; `request.body` would make it build the
    // whole web Request and its streams first. Chunked bodies keep the bounded reader.
    bytes = declared === undefined ? await readBounded(request, maxBytes) : new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    throw error instanceof A2AError ? error : new BodyCut(error);
  }
  // An in-process Request (tests, app.request) can carry more than it declares.
  if (bytes.byteLength > maxBytes) throw tooLarge();
  try {
    return utf8.decode(bytes);
  } catch {
    throw A2AError.parse('Parse error: the body is not valid UTF-8');
  }
}

/** A JSON body, or -32700 (`parseErrorMessage`); check its depth with `nestedDeeperThan` before using it. */
export function parseJsonBody(text: string, parseErrorMessage = 'Parse error'): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw A2AError.parse(parseErrorMessage);
  }
}

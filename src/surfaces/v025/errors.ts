import { retryAfterHeader, toA2AError, withFields, type A2AError } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import { jsonRpcText } from '../../protocol/jsonrpc-exact-ids.js';
import { errorToV025, type V025ErrorObject } from '../../translate/index.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';
import { sseResponse } from '../shared/sse.js';
import { failureReason, isGatewayFailure, type FacadeWords } from './reply/index.js';

export interface V025ErrorEnvelope {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: V025ErrorObject;
}

/** Anything thrown, as a 0.2.5 error envelope: code mapped by the profile, a safe message, no 1.0 ErrorInfo list. */
export function v025ErrorBody(id: JsonRpcId, error: unknown, profile: MappingProfile): V025ErrorEnvelope {
  return { jsonrpc: '2.0', id, error: errorToV025(toA2AError(error), profile) };
}

/**
 * A failure of the gateway's own (the agent out of reach, a time-out) in the turn's words ("上游智能体响应超时" for
 * a Chinese turn), as a failed turn's reason reads; the agent's own reasons stay as it said them.
 */
export function toldInWords(error: A2AError, words: FacadeWords): A2AError {
  return isGatewayFailure(error.message) ? error.toldAs(failureReason(words, error.message)) : error;
}

/**
 * HTTP 200 like every JSON-RPC answer: the a2a-js 0.2.5 client throws away the body of a non-2xx reply.
 * A refusal for now keeps its `Retry-After`, for whatever sits between the caller and the facade.
 */
export function v025Error(id: JsonRpcId, error: unknown, profile: MappingProfile): Response {
  return new Response(jsonRpcText(v025ErrorBody(id, error, profile)), {
    status: 200,
    headers: withFields({ 'content-type': 'application/json' }, retryAfterHeader(toA2AError(error))),
  });
}

async function* once<T>(item: T): AsyncGenerator<T> {
  yield item;
}

/** A source that fails at once: its stream ends failed, with the frames onError renders of `error`. */
const failing = (error: unknown): AsyncIterable<never> => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }) });

/**
 * A streaming method (message/stream, tasks/resubscribe) always answers text/event-stream, because a
 * 0.2.5 streaming client reads the answer as a stream: the a2a-js 0.2.5 client reports a JSON body as
 * "Invalid response Content-Type" and drops its message, where the same error as an SSE frame reaches
 * the caller with its words. A failure before the first event is therefore one frame with the 0.2.5
 * error envelope, then the end: an unnamed event, as a2a-python's server writes one, because a client
 * that listens to default events only would miss an `event: error`. A refusal for now (a turn cap)
 * keeps its `Retry-After`.
 */
export function v025ErrorStream(id: JsonRpcId, error: unknown, profile: MappingProfile): Response {
  const failure = toA2AError(error);
  const frame = { data: jsonRpcText(v025ErrorBody(id, failure, profile)) };
  // The frame rendered as the failure of the stream's source: the stream ends failed, as its `stream ended` line says.
  return sseResponse(failing(failure), { keepaliveMs: 0, onError: () => frame, headers: retryAfterHeader(failure) });
}

/** An SSE response of one unnamed frame holding `envelope`, then the end. */
export function oneFrameStream(envelope: unknown, headers: Record<string, string> = {}): Response {
  return oneFrame(JSON.stringify(envelope), headers);
}

/** An SSE response of one unnamed frame of `data`, then the end. */
function oneFrame(data: string, headers: Record<string, string> = {}): Response {
  return sseResponse(once({ data }), { keepaliveMs: 0, onError: () => undefined, headers });
}

export const STREAMING_METHODS: ReadonlySet<string> = new Set(['message/stream', 'tasks/resubscribe']);

/** A 0.2.5 call's failure as its method answers: a one-frame stream for a streaming method, else JSON. */
export function v025ErrorAnswer(id: JsonRpcId, method: string, error: unknown, profile: MappingProfile): Response {
  return STREAMING_METHODS.has(method) ? v025ErrorStream(id, error, profile) : v025Error(id, error, profile);
}

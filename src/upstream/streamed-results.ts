import type { Dispatcher } from 'undici';
import { DONE, Stage } from '../core/iterable-stages.js';
import { decodedBody, releaseBody, type UpstreamBody } from './decoded-body.js';
import { headerValue } from './http.js';
import { readSse, type IdleBound, type SseMessage } from './sse-reader.js';
import { fromTransportError } from './upstream-errors.js';

/** What a frame that carries no result (a blank one) is: read past, never shown to `toEvent`. */
export const NO_RESULT: unique symbol = Symbol('no result');

/** What one wire's stream call does, shared by all its streams (one object per wire, none per stream). */
export interface StreamWire<C extends StreamCall> {
  /** A new request id for one call. */
  requestId(): string;
  /** Sends the call's request. */
  post(call: C, id: string): Promise<Dispatcher.ResponseData>;
  /** The result of an answer that is no event stream (errors found before the first event come so), or its error thrown. */
  whole(statusCode: number, text: string, id: string, call: C): unknown;
  /** The result of one SSE frame (NO_RESULT for a frame that carries none), or its error thrown. */
  frame(message: SseMessage, id: string, call: C): unknown;
  /** The call's bound on its body's silence. */
  idle(call: C): IdleBound | undefined;
}

export interface StreamCall {
  ctx: { signal: AbortSignal; onAccepted?: () => void };
}

/**
 * One streaming call as a Stage over its SSE reader: `toEvent` of each frame's result, or nothing for frames it maps to
 * undefined. Once the stream is open a Stage above reads the reader itself and hands the frame up through this one, so
 * the stream from the reader up is one run (no resume and yield of a generator per event). As the generator it replaces:
 * the request is sent on the first read, errors are mapped by fromTransportError, the body is released at the end on
 * every path (done, failed, returned), and `return()` waits for a read in flight, as a generator's queues behind it.
 */
class StreamedResults<C extends StreamCall, T> extends Stage<SseMessage, T> {
  readonly #wire: StreamWire<C>;
  readonly #call: C;
  readonly #toEvent: (result: unknown) => T | undefined;
  #id = '';
  #body: UpstreamBody | undefined;
  #reader: AsyncIterableIterator<SseMessage> | undefined;
  #started = false;
  #ended = false;
  /** A read is in flight: from the request, or through `source()`, to the result handed on. */
  #reading = false;
  /** What a `return()` during a read waits for. */
  #readSettled: { promise: Promise<void>; resolve(): void } | undefined;

  constructor(wire: StreamWire<C>, call: C, toEvent: (result: unknown) => T | undefined) {
    super();
    this.#wire = wire;
    this.#call = call;
    this.#toEvent = toEvent;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#ended) return Promise.resolve(DONE);
    if (this.#reader) return this.read();
    // Only while the first read opens the stream: reads of a stream come one after another, as every Stage's do.
    if (this.#started) return Promise.resolve(DONE);
    this.#started = true;
    this.#reading = true;
    return this.#first();
  }

  /** Called once per read that goes through this stage (Stage's `#readied`): the read is in flight until seen or failed. */
  protected source(): AsyncIterator<SseMessage> {
    this.#reading = true;
    return this.#reader!;
  }

  protected passable(): boolean {
    return this.#reader !== undefined && !this.#ended;
  }

  protected seen(result: IteratorResult<SseMessage>): IteratorResult<T> | Promise<IteratorResult<T>> {
    if (result.done) {
      this.#end(false);
      return DONE;
    }
    let event: T | undefined;
    try {
      const frame = this.#wire.frame(result.value, this.#id, this.#call);
      event = frame === NO_RESULT ? undefined : this.#toEvent(frame);
    } catch (error) {
      // As a for-await whose body throws: the reader is returned first.
      void this.#reader?.return?.();
      return this.failed(error);
    }
    // A frame that carries nothing: the read goes on, as the generator's loop did.
    if (event === undefined) return this.read();
    this.#settled();
    return { done: false, value: event };
  }

  protected failed(error: unknown): Promise<never> {
    this.#end(true);
    return Promise.reject(fromTransportError(error, { caller: this.#call.ctx.signal }));
  }

  async return(): Promise<IteratorResult<T>> {
    if (this.#reading) {
      if (!this.#readSettled) {
        let resolve!: () => void;
        const promise = new Promise<void>((settle) => (resolve = settle));
        this.#readSettled = { promise, resolve };
      }
      await this.#readSettled.promise;
    }
    if (!this.#ended) {
      // As a for-await left early, then the generator's finally: the reader stops listening before the body is let go.
      await this.#reader?.return?.();
      this.#end(false);
    }
    return DONE;
  }

  /** The request, then the first read: the stream opens here, and an answer that is no event stream is read whole. */
  async #first(): Promise<IteratorResult<T>> {
    const call = this.#call;
    this.#id = this.#wire.requestId();
    let response: Dispatcher.ResponseData;
    try {
      response = await this.#wire.post(call, this.#id);
    } catch (error) {
      this.#ended = true;
      this.#settled();
      throw fromTransportError(error, { caller: call.ctx.signal });
    }
    this.#body = response.body;
    try {
      const body = (this.#body = decodedBody(response));
      const isSse = headerValue(response.headers['content-type']).startsWith('text/event-stream');
      if (!isSse || response.statusCode < 200 || response.statusCode >= 300) {
        const event = this.#toEvent(this.#wire.whole(response.statusCode, await body.text(), this.#id, call));
        this.#end(false);
        return event === undefined ? DONE : { done: false, value: event };
      }
      call.ctx.onAccepted?.();
      this.#reader = readSse(body, this.#wire.idle(call));
    } catch (error) {
      return this.failed(error);
    }
    return this.read();
  }

  /** The stream is over (or given up): its body released, a waiting `return()` let go. */
  #end(failed: boolean): void {
    this.#ended = true;
    this.#reader = undefined;
    const body = this.#body;
    this.#body = undefined;
    if (body) releaseBody(body, failed);
    this.#settled();
  }

  #settled(): void {
    this.#reading = false;
    const waiting = this.#readSettled;
    if (!waiting) return;
    this.#readSettled = undefined;
    waiting.resolve();
  }
}

export function streamedResults<C extends StreamCall, T>(
  wire: StreamWire<C>,
  call: C,
  toEvent: (result: unknown) => T | undefined,
): AsyncIterableIterator<T> {
  return new StreamedResults(wire, call, toEvent);
}

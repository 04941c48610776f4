import { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';

export interface SseMessage {
  event?: string;
  data: string;
  id?: string;
}

type Body = AsyncIterable<Uint8Array | string>;

/**
 * A chunk of well-formed UTF-8 that follows a chunk ending in an ASCII byte (or opens the body, with no BOM), and ends in
 * one itself, holds whole characters only: it reads the same decoded whole as by the stream's decoder past its start
 * (where a BOM is text). Node's decoder of whole input takes its fast path (simdutf), which checks the bytes as it goes
 * (`fatal`: a chunk that is not well-formed is left to the stream's decoder, which replaces what is bad); a decoder that
 * ever decoded with `stream` goes through ICU for good, some 4,500 instructions per chunk of an event under callgrind
 * (bench/README.md, fiftieth pass).
 */
const wholeDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Shared: `decode` only reads it. */
const STREAMING = { stream: true } as const;

/** An eventsource parser with its own UTF-8 decoder, collecting complete messages into `ready`. */
function sseParser(ready: SseMessage[]): { feed(chunk: Uint8Array | string): void; end(): void } {
  const parser = createParser({
    onEvent(message) {
      const out: SseMessage = { data: message.data };
      if (message.event !== undefined) out.event = message.event;
      if (message.id !== undefined) out.id = message.id;
      ready.push(out);
    },
  });
  // Streaming decode, for a multi-byte character split across two chunks: made on the first chunk that needs it, which
  // on most bodies none does (a decoder made is an ICU converter made on its first decode, and that decode through ICU).
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  // The body's start is behind: only a decoder made there drops a BOM.
  let started = false;
  // The stream decoder, if any, holds no piece of a character.
  let clean = true;
  const decode = (chunk: Uint8Array): string => {
    const last = chunk[chunk.length - 1];
    if (last === undefined) return '';
    const atStart = !started;
    started = true;
    // A body that opens with 0xEF may open with a BOM (or a piece of one), which the whole decoder would keep as text.
    if (clean && last < 0x80 && !(atStart && chunk[0] === 0xef)) {
      try {
        return wholeDecoder.decode(chunk);
      } catch {
        // Not well-formed: decoded below, bad bytes replaced.
      }
    }
    clean = last < 0x80;
    // Past the body's start a U+FEFF that opens the decoder's input is text, as it is to a decoder of the whole body.
    decoder ??= new TextDecoder('utf-8', { ignoreBOM: !atStart });
    return decoder.decode(chunk, STREAMING);
  };
  return {
    feed: (chunk) => parser.feed(typeof chunk === 'string' ? chunk : decode(chunk)),
    // End of body: terminate a pending line and dispatch a pending frame.
    end: () => parser.feed(decoder ? `${decoder.decode()}\n\n` : '\n\n'),
  };
}

const ignore = (): void => undefined;

/**
 * The wake-ups' microtask: a reaction to one settled promise costs a promise per wake-up, where node's
 * `queueMicrotask` makes an `AsyncResource` and a bound function too (bench/README.md, sixty-first pass).
 * Both run on V8's one microtask queue, in the same order.
 */
const settled = Promise.resolve();

const isNodeReadable = (body: Body): body is Body & Readable =>
  typeof (body as Partial<Readable>).on === 'function' && typeof (body as Partial<Readable>).pause === 'function';

/**
 * How long a body may send nothing at all, a comment or a piece of a frame included, before the read
 * fails with `error()`: a server that pings (`: ping`, sse-starlette every 15 s) is alive while it
 * thinks, one that froze with its connection open is not.
 */
export interface IdleBound {
  ms: number;
  error(): unknown;
}

/**
 * Server-sent events of a response body, one message per complete frame, yielded as soon as the
 * frame's blank line arrives (never batched behind later chunks). Comments (`: ping`) are skipped.
 * A last frame that the server ended without its blank line is still delivered when the body ends:
 * some servers omit it and a reader that waits for it loses the final event (a2a-python#1213).
 * Leaving early stops reading the body (a Node stream is destroyed).
 */
export function readSse(body: Body, idle?: IdleBound): AsyncIterableIterator<SseMessage> {
  if (isNodeReadable(body)) return new ReadableSse(body, idle);
  return idle && idle.ms > 0 ? new ReadableSse(Readable.from(body, { objectMode: true }), idle) : readIterable(body);
}

async function* readIterable(body: Body): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = [];
  const parser = sseParser(ready);
  for await (const chunk of body) {
    parser.feed(chunk);
    while (ready.length > 0) yield ready.shift() as SseMessage;
  }
  parser.end();
  while (ready.length > 0) yield ready.shift() as SseMessage;
}

/**
 * The same over a Node stream in paused mode (`read()` on 'readable', as its own async iterator
 * does) without that iterator's generator: an open stream waiting for its next frame holds one
 * pending promise, not two suspended generators. Chunks are only read when no parsed message is
 * waiting, so the stream's buffer, and with it the connection, fills up when the consumer is slow.
 */
class ReadableSse implements AsyncIterableIterator<SseMessage> {
  readonly #body: Readable;
  readonly #ready: SseMessage[] = [];
  readonly #parser = sseParser(this.#ready);
  #ended = false;
  /** The parser got the end of the body (a last frame without its blank line is out). */
  #flushed = false;
  #failure: { error: unknown } | undefined;
  /** The pending read, while it waits for the body. */
  #waiting: { resolve(result: IteratorResult<SseMessage>): void; reject(error: unknown): void } | undefined;
  #delivering = false;
  /** One timer for the body's life, pushed back by each chunk (`refresh`): none made per event. */
  readonly #idle: NodeJS.Timeout | undefined;

  constructor(body: Readable, idle?: IdleBound) {
    this.#body = body;
    body.on('readable', this.#notify);
    body.once('end', this.#onEnd);
    body.once('error', this.#onError);
    body.once('close', this.#onClose);
    if (idle && idle.ms > 0) {
      this.#idle = setTimeout(() => this.#onIdle(idle), idle.ms);
      this.#idle.unref();
    }
  }

  /** What waits unread (a consumer slower than the server) is no silence of the server's. */
  #onIdle(idle: IdleBound): void {
    if (this.#ready.length > 0 || this.#body.readableLength > 0) this.#idle?.refresh();
    else this.#onError(idle.error());
  }

  readonly #notify = (): void => {
    if (!this.#waiting || this.#delivering) return;
    this.#delivering = true;
    void settled.then(this.#deliver);
  };

  readonly #onEnd = (): void => {
    clearTimeout(this.#idle);
    this.#ended = true;
    this.#notify();
  };

  readonly #onError = (error: unknown): void => {
    this.#failure ??= { error };
    this.#notify();
  };

  readonly #onClose = (): void => {
    if (!this.#ended) this.#failure ??= { error: new Error('The response body closed before its end') };
    this.#notify();
  };

  /** Stops listening; an error the body still emits (undici errors a body destroyed before its end) is moot by then. */
  #detach(): void {
    clearTimeout(this.#idle);
    this.#body.off('readable', this.#notify);
    this.#body.off('end', this.#onEnd);
    this.#body.off('close', this.#onClose);
    this.#body.off('error', this.#onError);
    this.#body.on('error', ignore);
  }

  /**
   * Not an async loop: an open stream's read waits here for its next frame, and the pending promise alone costs
   * it less than a suspended frame (thousands of idle streams each hold one).
   */
  next(): Promise<IteratorResult<SseMessage>> {
    let result: IteratorResult<SseMessage> | undefined;
    try {
      result = this.#step();
    } catch (error) {
      return Promise.reject(error);
    }
    if (result) return Promise.resolve(result);
    return new Promise((resolve, reject) => (this.#waiting = { resolve, reject }));
  }

  /** The next message, or the end, from what is in; undefined when the body must be waited for. */
  #step(): IteratorResult<SseMessage> | undefined {
    for (;;) {
      const message = this.#ready.shift();
      if (message) return { done: false, value: message };
      if (this.#failure) {
        this.#detach();
        throw this.#failure.error;
      }
      const chunk = this.#body.read() as Uint8Array | string | null;
      if (chunk !== null) {
        this.#idle?.refresh();
        this.#parser.feed(chunk);
        continue;
      }
      if (this.#ended || this.#body.readableEnded) {
        if (!this.#flushed) {
          this.#flushed = true;
          this.#parser.end();
          continue;
        }
        this.#detach();
        return { done: true, value: undefined };
      }
      return undefined;
    }
  }

  /**
   * The waiting read goes on a microtask after the body's news, as an awaiting loop would resume. It cannot
   * throw (what `#step` throws rejects the read), so its reaction's promise never rejects.
   */
  readonly #deliver = (): void => {
    this.#delivering = false;
    const waiting = this.#waiting;
    if (!waiting) return;
    let result: IteratorResult<SseMessage> | undefined;
    try {
      result = this.#step();
    } catch (error) {
      this.#waiting = undefined;
      waiting.reject(error);
      return;
    }
    if (!result) return;
    this.#waiting = undefined;
    waiting.resolve(result);
  };

  async return(): Promise<IteratorResult<SseMessage>> {
    this.#detach();
    this.#ready.length = 0;
    this.#failure = undefined;
    this.#ended = true;
    this.#flushed = true;
    // The owner of the response decides when to cut it (releaseBody); a reader left early only stops reading.
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SseMessage> {
    return this;
  }
}

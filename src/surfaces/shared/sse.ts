import { untilShutdown } from './shutdown-watch.js';

export interface SseFrame {
  data: string;
  event?: string;
}

export interface SseOptions {
  /** Interval of `: ping` comments that keep proxies and load balancers from cutting an idle stream; 0 disables. */
  keepaliveMs: number;
  /** The request's signal: its abort means the client is gone. */
  signal?: AbortSignal;
  /** Renders a failure of the source as the stream's last frames (a protocol error), or nothing. */
  onError(error: unknown): SseFrame | SseFrame[] | undefined;
  /** Called once when the stream is stopped before the source ended (client gone, shutdown): abort the upstream call here. */
  onCancel?(): void;
  /**
   * The gateway's shutdown signal: its abort ends the stream at once with `onError(reason)`'s frames,
   * so the caller learns the stream is over in its own protocol instead of seeing the socket drop.
   */
  shutdown?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * A comment written before any frame, e.g. while the upstream has accepted the call but sent
   * nothing yet: the client gets the headers and a first byte at once, not after a keep-alive interval.
   */
  comment?: string;
}

const encoder = new TextEncoder();
const LINE_BREAK = /[\r\n]/;

/** One SSE event; a multi-line payload becomes several `data:` lines so no line break can end it early. */
export function encodeFrame(frame: SseFrame): Uint8Array {
  const event = frame.event ? `event: ${frame.event.replace(/[\r\n]/g, '')}\n` : '';
  // JSON text never holds a raw line break: the usual frame is one data line.
  const data = LINE_BREAK.test(frame.data)
    ? frame.data
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}\n`)
        .join('')
    : `data: ${frame.data}\n`;
  return encoder.encode(`${event}${data}\n`);
}

type SseController = ReadableStreamDefaultController<Uint8Array>;

/**
 * One keepalive timer per interval for all open streams, not one per stream: an idle stream costs
 * a Set entry instead of a timer and its closures, and each tick encodes its ping once. A stream's
 * first ping therefore comes up to one interval after it opened, not exactly one.
 */
const keepalives = new Map<number, { timer: NodeJS.Timeout; streams: Set<SseController> }>();

/** Pings `stream` every `ms` until the returned function is called. */
function keepAlive(ms: number, stream: SseController): () => void {
  let ticker = keepalives.get(ms);
  if (!ticker) {
    const streams = new Set<SseController>();
    const timer = setInterval(() => {
      const ping = encoder.encode(`: ping ${new Date().toISOString()}\n\n`);
      for (const open of streams) {
        try {
          open.enqueue(ping);
        } catch {
          // closed by its reader in the meantime: its own cleanup unregisters it
        }
      }
    }, ms);
    timer.unref();
    ticker = { timer, streams };
    keepalives.set(ms, ticker);
  }
  const { streams, timer } = ticker;
  streams.add(stream);
  return () => {
    if (!streams.delete(stream) || streams.size > 0) return;
    clearInterval(timer);
    keepalives.delete(ms);
  };
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-cache plus X-Accel-Buffering stops nginx-style proxies from buffering the stream.
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

/**
 * Streams frames as Server-Sent Events. Each frame is enqueued the moment the source yields it (the
 * stream pulls the source one frame ahead, so a slow client also slows the source down); a failing
 * source ends with `onError`'s frames; a client that goes away stops the pings and returns the source;
 * a shutdown does the same after writing `onError(shutdown.reason)`'s frames.
 */
export function sseResponse(frames: AsyncIterable<SseFrame>, options: SseOptions): Response {
  const iterator = frames[Symbol.asyncIterator]();
  const { signal, shutdown } = options;
  let stopKeepalive: (() => void) | undefined;
  let stopWatchingShutdown: (() => void) | undefined;
  let finished = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  const finish = (): boolean => {
    if (finished) return false;
    finished = true;
    stopKeepalive?.();
    signal?.removeEventListener('abort', disconnect);
    stopWatchingShutdown?.();
    return true;
  };

  const renderError = (error: unknown): SseFrame[] => {
    try {
      const rendered = options.onError(error);
      return rendered === undefined ? [] : Array.isArray(rendered) ? rendered : [rendered];
    } catch {
      return [];
    }
  };

  /** Ends the stream before the source did: last frames, then the upstream call is aborted and the source returned. */
  function stop(lastFrames: SseFrame[]): void {
    options.onCancel?.();
    // An async generator queues return() behind a pending next(): onCancel is what interrupts that wait.
    Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => undefined);
    try {
      for (const frame of lastFrames) controller.enqueue(encodeFrame(frame));
      controller.close();
    } catch {
      // already closed or cancelled by the reader
    }
  }

  function disconnect(): void {
    if (finish()) stop([]);
  }

  function interrupt(): void {
    // Rendered before onCancel runs, while the dialect's view of the stream is still the one the caller saw.
    if (finish()) stop(renderError(shutdown?.reason));
  }

  const stream = new ReadableStream<Uint8Array>({
    start(ctrl) {
      controller = ctrl;
      if (signal?.aborted) {
        disconnect();
        return;
      }
      if (shutdown?.aborted) {
        interrupt();
        return;
      }
      signal?.addEventListener('abort', disconnect, { once: true });
      if (shutdown) stopWatchingShutdown = untilShutdown(shutdown, interrupt);
      if (options.comment !== undefined) ctrl.enqueue(encoder.encode(`: ${options.comment.replace(/[\r\n]/g, ' ')}\n\n`));
      if (options.keepaliveMs > 0) stopKeepalive = keepAlive(options.keepaliveMs, ctrl);
    },
    async pull(ctrl) {
      if (finished) return;
      let result: IteratorResult<SseFrame>;
      try {
        result = await iterator.next();
      } catch (error) {
        if (!finish()) return;
        for (const frame of renderError(error)) ctrl.enqueue(encodeFrame(frame));
        ctrl.close();
        return;
      }
      if (finished) return;
      if (result.done) {
        finish();
        ctrl.close();
        return;
      }
      ctrl.enqueue(encodeFrame(result.value));
    },
    cancel() {
      disconnect();
    },
  });

  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}

/**
 * Reads the first item before anything is committed, so a failure before the first event can still be
 * answered as an ordinary (JSON) error. `rest` yields that first item again, then the remainder; its
 * `return()` reaches the source directly.
 */
export async function pullFirst<T>(iterable: AsyncIterable<T>): Promise<{ first: T | undefined; rest: AsyncIterable<T> }> {
  const iterator = iterable[Symbol.asyncIterator]();
  const head = await iterator.next();
  let replayed = false;
  const rest: AsyncIterator<T> = {
    next: () => {
      if (!replayed) {
        replayed = true;
        return Promise.resolve(head);
      }
      return iterator.next();
    },
    return: async (value?: unknown) => {
      replayed = true;
      if (iterator.return) return iterator.return(value);
      return { done: true, value: undefined };
    },
  };
  return { first: head.done ? undefined : head.value, rest: { [Symbol.asyncIterator]: () => rest } };
}

/** Maps each item; `return()` is forwarded at once (an async generator would queue it behind a pending next). */
export function mapIterable<T, U>(iterable: AsyncIterable<T>, map: (item: T) => U): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator]: () => {
      const iterator = iterable[Symbol.asyncIterator]();
      return {
        // then(), not an async function: a waiting stream keeps no suspended frame here.
        next: () =>
          iterator
            .next()
            .then((result): IteratorResult<U> => (result.done ? { done: true, value: undefined } : { done: false, value: map(result.value) })),
        return: async () => {
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

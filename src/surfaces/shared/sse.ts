import { SseChannel, type SseObserver, type SseOptions } from './sse-channel.js';
import { SSE_HEADERS, type SseFrame } from './sse-frames.js';
import { withFields } from '../../model/index.js';

export { encodeFrame, SSE_HEADERS, type SseFrame } from './sse-frames.js';
export type { SseOptions } from './sse-channel.js';

const encoder = new TextEncoder();

/** The channel behind each SSE body this module made, so a consumer can observe it however the response was re-wrapped. */
const channels = new WeakMap<ReadableStream, SseChannel>();
/**
 * The same by response, for sse-direct.ts: it checks every response the app answers, and reading
 * `body` of @hono/node-server's light Response would build a full one and lose its fast path.
 */
const responses = new WeakMap<Response, SseChannel>();

/** The SSE channel of a response body made by sseResponse, if it is one. */
export function sseChannelOf(body: ReadableStream | null): SseChannel | undefined {
  return body ? channels.get(body) : undefined;
}

/** The SSE channel of a response made by sseResponse (the same object, not re-wrapped), if it is one. */
export const sseChannelOfResponse = (response: Response): SseChannel | undefined => responses.get(response);

/** Observes the stream behind `body`; false when it is not one of ours. */
export function observeSse(body: ReadableStream | null, observer: SseObserver): boolean {
  const channel = sseChannelOf(body);
  channel?.observe(observer);
  return channel !== undefined;
}

/**
 * Streams frames as Server-Sent Events. Each frame is handed out the moment the source yields it (the
 * source is pulled when the reader asks, so a slow client also slows the source down); a failing
 * source ends with `onError`'s frames; a client that goes away stops the pings and returns the source;
 * a shutdown does the same after writing `onError(shutdown.reason)`'s frames.
 *
 * The body is a web ReadableStream, for in-process callers; served over Node HTTP, sse-direct.ts
 * writes the same channel straight to the Node response and this stream is never read.
 */
export function sseResponse(frames: AsyncIterable<SseFrame>, options: SseOptions): Response {
  const channel = new SseChannel(frames, options);
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        channel.claimed = true;
        const text = await channel.read();
        // An in-process reader: what is handed to it is read, as far as anything here can tell.
        if (text === null) {
          controller.close();
        } else {
          controller.enqueue(encoder.encode(text));
          channel.written();
        }
      },
      cancel() {
        channel.cancel();
      },
    },
    { highWaterMark: 0 },
  );
  channels.set(stream, channel);
  const response = new Response(stream, { status: 200, headers: withFields(SSE_HEADERS, options.headers) });
  responses.set(response, channel);
  return response;
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

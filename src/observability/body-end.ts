import type { Context } from 'hono';
import { observeSse, type SseFrame } from '../surfaces/shared/sse.js';

export const isStream = (res: Response): boolean => res.headers.get('content-type')?.startsWith('text/event-stream') === true;

const COLON = 0x3a;

/**
 * The response with its body relayed chunk by chunk as it comes (nothing is buffered ahead), calling
 * `done` once when the body ends, fails or is cancelled, and `firstEvent` once when the first SSE
 * event (a chunk that is not a `:` comment: the opening `: accepted` and keep-alives are comments)
 * goes out. A cancel (the client went away) is passed on to the original body, so the upstream call
 * is still aborted.
 */
export function onBodyEnd(res: Response, done: () => void, firstEvent?: () => void, frame?: (frame: SseFrame) => void): Response {
  // The gateway's own streams are observed where their frames are made: no second stream per response.
  // Only those are told each frame (`frame`): a relayed body is bytes.
  if (observeSse(res.body, { end: done, ...(firstEvent ? { firstEvent } : {}), ...(frame ? { frame } : {}) })) return res;
  let waitingForEvent = firstEvent !== undefined;
  if (!res.body) {
    done();
    return res;
  }
  const relayed = relayedChunks(res.body as ReadableStream<Uint8Array>, {
    chunk(bytes) {
      if (waitingForEvent && bytes.length > 0 && bytes[0] !== COLON) {
        waitingForEvent = false;
        firstEvent!();
      }
    },
    end: done,
  });
  return new Response(relayed, res);
}

/**
 * A body relayed chunk by chunk as it comes (nothing read ahead: each chunk is handed on before the next is asked
 * for), `chunk` told each before it goes on, `end` once when the body ends, fails or its reader cancels it. A cancel
 * (the client went away) is passed on to the body, so the upstream call is still aborted.
 */
export function relayedChunks(body: ReadableStream<Uint8Array>, hooks: { chunk(bytes: Uint8Array): void; end(): void }): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            hooks.end();
            controller.close();
            return;
          }
          hooks.chunk(next.value);
          controller.enqueue(next.value);
        } catch (error) {
          hooks.end();
          controller.error(error);
        }
      },
      async cancel(reason) {
        hooks.end();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Sets `c.res` only when it changed: Hono's setter re-wraps the response it is given, and the gateway's
 * own SSE responses must stay the very object their handler made (sse-direct.ts finds them by it).
 */
export function replaceResponse(c: Context, res: Response): void {
  if (res !== c.res) c.res = res;
}

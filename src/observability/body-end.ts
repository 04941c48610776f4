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
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const relayed = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            done();
            controller.close();
          } else {
            if (waitingForEvent && next.value.length > 0 && next.value[0] !== COLON) {
              waitingForEvent = false;
              firstEvent!();
            }
            controller.enqueue(next.value);
          }
        } catch (error) {
          done();
          controller.error(error);
        }
      },
      async cancel(reason) {
        done();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(relayed, res);
}

/**
 * Sets `c.res` only when it changed: Hono's setter re-wraps the response it is given, and the gateway's
 * own SSE responses must stay the very object their handler made (sse-direct.ts finds them by it).
 */
export function replaceResponse(c: Context, res: Response): void {
  if (res !== c.res) c.res = res;
}

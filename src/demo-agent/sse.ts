import { toA2AError, toJsonRpcError, type StreamResponse } from '../model/index.js';
import type { JsonRpcId } from '../surfaces/shared/jsonrpc.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
} as const;

const encoder = new TextEncoder();

/** sse-starlette's keep-alive comment: `: ping - 2026-11-29 11:25:08.861112+00:00`. */
function pingFrame(): Uint8Array {
  const stamp = new Date().toISOString().replace('T', ' ').replace('Z', '000+00:00');
  return encoder.encode(`: ping - ${stamp}\r\n\r\n`);
}

/**
 * iac-code's JSON-RPC SSE framing: one `data: {"result":…,"id":…,"jsonrpc":"2.0"}` per event,
 * CRLF line ends, no event/id lines; an error after the first event becomes `event: error`.
 * Cancelling the body (client gone) detaches from the events without stopping the turn.
 */
export function jsonRpcSseResponse(events: AsyncIterable<StreamResponse>, id: JsonRpcId, pingIntervalMs: number): Response {
  const iterator = events[Symbol.asyncIterator]();
  let ping: ReturnType<typeof setInterval> | undefined;
  let done = false;
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>): void => {
    done = true;
    clearInterval(ping);
    controller.close();
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      ping = setInterval(() => {
        if (!done) controller.enqueue(pingFrame());
      }, pingIntervalMs);
      ping.unref?.();
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (done) return;
        if (next.done) return finish(controller);
        const frame = JSON.stringify({ result: next.value, id, jsonrpc: '2.0' });
        controller.enqueue(encoder.encode(`data: ${frame}\r\n\r\n`));
      } catch (error) {
        if (done) return;
        const frame = JSON.stringify({ error: toJsonRpcError(toA2AError(error)), id, jsonrpc: '2.0' });
        controller.enqueue(encoder.encode(`event: error\r\ndata: ${frame}\r\n\r\n`));
        finish(controller);
      }
    },
    async cancel() {
      done = true;
      clearInterval(ping);
      await iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

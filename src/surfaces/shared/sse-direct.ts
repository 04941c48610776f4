import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { SseChannel } from './sse-channel.js';
import { sseChannelOfResponse } from './sse.js';

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

function outgoingOf(env: unknown): ServerResponse | undefined {
  const outgoing = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return outgoing && typeof outgoing.writeHead === 'function' ? outgoing : undefined;
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name] = value));
  return record;
}

/** Resolves once the response can take more (or is gone). */
function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
  });
}

/**
 * Writes the channel to the Node response as it reads: text straight to the socket, no web stream, no
 * encoder, no adapter loop per stream. The head goes out at once (a stream opens at acceptance), in the
 * same write as the opening comment when there is one.
 */
async function pipeChannel(channel: SseChannel, status: number, headers: Headers, outgoing: ServerResponse): Promise<void> {
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) channel.cancel();
  });
  outgoing.writeHead(status, headerRecord(headers));
  let first = true;
  for (;;) {
    const pending = channel.read();
    // Nothing to send with the head yet: send the head alone, so the client sees the stream open.
    if (first) {
      first = false;
      const ready = await Promise.race([pending, Promise.resolve(undefined)]);
      if (ready === undefined) outgoing.flushHeaders();
    }
    const text = await pending;
    if (text === null || outgoing.destroyed) break;
    if (!outgoing.write(text)) await drained(outgoing);
  }
  if (!outgoing.destroyed) outgoing.end();
}

/**
 * The app's fetch for @hono/node-server with the gateway's SSE responses written straight to the
 * Node response. Everything else, and every SSE body already being read, goes the adapter's way.
 * In-process callers (`app.request`) never pass here and read the web stream.
 */
export function withDirectSse(fetch: Fetch): Fetch {
  return async (request, env) => {
    const response = await fetch(request, env);
    const channel = sseChannelOfResponse(response);
    const outgoing = outgoingOf(env);
    if (!channel || channel.claimed || !outgoing) return response;
    channel.claimed = true;
    void pipeChannel(channel, response.status, response.headers, outgoing).catch(() => {
      channel.cancel();
      outgoing.destroy();
    });
    // The adapter's own marker: a Response made here could take its cached fast path and write a second head.
    return RESPONSE_ALREADY_SENT;
  };
}

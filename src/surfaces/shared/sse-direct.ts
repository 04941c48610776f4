import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { SseChannel } from './sse-channel.js';
import type { SseFrame } from './sse-frames.js';
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
 * The caller hung up: the connection's end (its FIN) was read, it was reset, or the response is gone. The FIN comes a
 * loop turn or more before the response's 'close' (the server ends the socket, then it closes): up to tens
 * of milliseconds on a busy loop, in which the agent's next event would otherwise be written to no one.
 */
const peerGone = (outgoing: ServerResponse, peer: Socket | null): boolean =>
  outgoing.destroyed || peer?.readableEnded === true || peer?.destroyed === true;

/**
 * Writes the channel to the Node response as it reads: text straight to the socket, no web stream, no
 * encoder, no adapter loop per stream. The head goes out at once (a stream opens at acceptance), in the
 * same write as the opening comment when there is one. Each write is acknowledged to the channel unless its
 * caller was seen gone first (then nothing more is written).
 */
async function pipeChannel(channel: SseChannel, status: number, headers: Headers, outgoing: ServerResponse): Promise<void> {
  const peer = outgoing.socket;
  let gone = false;
  const left = (): void => {
    gone = true;
    channel.callerLeft();
  };
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) left();
  });
  peer?.once('end', left);
  peer?.once('error', left);
  // A frame is acknowledged a loop turn after the one it was written in, unless the caller's hang-up was read by then.
  // Bytes written as the caller hangs up may reach its socket and never its reader (in flight, or read with the chunk
  // it stopped at): that cannot be told, and such a frame is shown again rather than lost (docs/facade-reply.md).
  // One check per loop turn, not per frame.
  const acknowledges = channel.acknowledges;
  let checking = false;
  let writtenBefore: SseFrame | undefined;
  const check = (): void => {
    checking = false;
    const ready = writtenBefore;
    writtenBefore = channel.takeWritten();
    if (gone || peerGone(outgoing, peer)) return;
    if (ready) channel.acknowledge(ready);
    if (writtenBefore) checkNextTurn();
  };
  const checkNextTurn = (): void => {
    if (checking) return;
    checking = true;
    setImmediate(check);
  };
  try {
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
      if (text === null) break;
      if (peerGone(outgoing, peer)) return left();
      const more = outgoing.write(text);
      if (acknowledges) checkNextTurn();
      if (!more) await drained(outgoing);
    }
    // A client that closes the connection once a stream ended (many do) read it to its end: nothing is watched after it.
    if (!outgoing.destroyed) outgoing.end();
  } finally {
    peer?.off('end', left);
    peer?.off('error', left);
  }
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

import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SseChannel } from './sse-channel.js';
import type { SseFrame } from './sse-frames.js';
import { writeChunkToSocket } from './chunked-write.js';

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name] = value));
  return record;
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
 * same write as the opening comment when there is one; after it, each text goes out as one chunk of the chunked
 * body written to the socket itself (`chunked-write.ts`), where the response's own write would make four. Each
 * write is acknowledged to the channel unless its caller was seen gone first (then nothing more is written).
 *
 * An object with then() callbacks, not an async loop: an idle stream waits here for as long as it is open, and a
 * pending read costs it less than a suspended frame. What throws fails the pipe: the channel is cancelled and the
 * response destroyed.
 */
export class SsePipe {
  private readonly peer: Socket | null;
  private gone = false;
  private readonly acknowledges: boolean;
  private checking = false;
  private writtenBefore: SseFrame | undefined;
  /** The head is on the wire (flushed alone, or with the first text): later texts may go straight to the socket. */
  private headSent = false;

  constructor(
    private readonly channel: SseChannel,
    private readonly outgoing: ServerResponse,
  ) {
    this.peer = outgoing.socket;
    this.acknowledges = channel.acknowledges;
  }

  start(status: number, headers: Headers): void {
    const { outgoing, peer } = this;
    outgoing.once('close', this.closed);
    peer?.once('end', this.left);
    peer?.once('error', this.left);
    this.attempt(() => {
      outgoing.writeHead(status, headerRecord(headers));
      const pending = this.channel.read();
      // Nothing to send with the head yet: send the head alone, so the client sees the stream open.
      void Promise.race([pending, Promise.resolve(undefined)]).then((ready) =>
        this.attempt(() => {
          if (ready === undefined) {
            outgoing.flushHeaders();
            this.headSent = true;
          }
          void pending.then(this.wrote);
        }),
      );
    });
  }

  private readonly closed = (): void => {
    if (!this.outgoing.writableFinished) this.left();
  };

  private readonly left = (): void => {
    this.gone = true;
    this.channel.callerLeft();
  };

  private readonly wrote = (text: string | null): void => this.attempt(() => this.write(text));

  private readonly readNext = (): void => void this.channel.read().then(this.wrote);

  private write(text: string | null): void {
    const { outgoing, peer } = this;
    if (text === null) {
      // A client that closes the connection once a stream ended (many do) read it to its end: nothing is watched after it.
      if (!outgoing.destroyed) outgoing.end();
      return this.stopWatching();
    }
    if (peerGone(outgoing, peer)) {
      this.left();
      return this.stopWatching();
    }
    const direct = this.headSent && peer ? writeChunkToSocket(outgoing, peer, text) : null;
    const more = direct ?? outgoing.write(text);
    this.headSent = true;
    if (this.acknowledges) this.checkNextTurn();
    if (more) this.readNext();
    else drained(outgoing, direct === null ? outgoing : peer!).then(this.readNext, this.readNext);
  }

  private attempt(step: () => void): void {
    try {
      step();
    } catch {
      this.stopWatching();
      this.channel.cancel();
      this.outgoing.destroy();
    }
  }

  private stopWatching(): void {
    this.peer?.off('end', this.left);
    this.peer?.off('error', this.left);
  }

  // A frame is acknowledged a loop turn after the one it was written in, unless the caller's hang-up was read by then.
  // Bytes written as the caller hangs up may reach its socket and never its reader (in flight, or read with the chunk
  // it stopped at): that cannot be told, and such a frame is shown again rather than lost (docs/facade-reply.md).
  // One check per loop turn, not per frame.
  private readonly check = (): void => {
    this.checking = false;
    const ready = this.writtenBefore;
    this.writtenBefore = this.channel.takeWritten();
    if (this.gone || peerGone(this.outgoing, this.peer)) return;
    if (ready) this.channel.acknowledge(ready);
    if (this.writtenBefore) this.checkNextTurn();
  };

  private checkNextTurn(): void {
    if (this.checking) return;
    this.checking = true;
    setImmediate(this.check);
  }
}

/** Resolves once what was written to (the response or its socket) can take more, or the response is gone. */
function drained(outgoing: ServerResponse, written: ServerResponse | Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      written.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    written.on('drain', done);
    outgoing.on('close', done);
  });
}

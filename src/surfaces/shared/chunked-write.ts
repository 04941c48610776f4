import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const uncork = (socket: Socket): void => socket.uncork();

/**
 * Writes `text` as one chunk of the response's chunked body straight to its socket, once the head is on the wire:
 * the bytes `outgoing.write(text)` sends, but as one string where the response makes four (the size, a line break,
 * the text, a line break) and hands them to a writev that reads each string's encoding by name: some 6,000
 * instructions of a stream event (bench/README.md, fifty-second pass). The socket stays corked to the next tick, as
 * the response corks it: texts written in one tick (a stream's burst) still leave in one writev, not a write each,
 * which doubled the CPU of a long back-to-back stream.
 * Returns whether the socket takes more (false: wait for its 'drain'), or null when the same bytes cannot be sent
 * this way (no chunked body, as for HTTP/1.0; the socket not the response's, or ended; an empty text, which would
 * end the body): the caller writes through the response then.
 */
export function writeChunkToSocket(outgoing: ServerResponse, socket: Socket, text: string): boolean | null {
  if (outgoing.chunkedEncoding !== true || outgoing.socket !== socket || !socket.writable || text.length === 0) return null;
  if (!socket.writableCorked) {
    socket.cork();
    process.nextTick(uncork, socket);
  }
  return socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
}

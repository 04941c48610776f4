import { Readable } from 'node:stream';

/**
 * A request body that tells `onSent` once undici has written it on the connection (CallContext.onMessageSent):
 * undici reads a stream body only after it has a connected socket for the request and has written its
 * headers, so a request still queued for one of the pool's connections, connecting, or refused never calls
 * it. One chunk, its length given, so the request goes as it would with the text (no chunked encoding).
 */
export function bodyTellingSent(text: string, onSent: () => void): { body: Readable; contentLength: string } {
  const bytes = Buffer.from(text, 'utf8');
  return { body: Readable.from(writtenThenTold(bytes, onSent), { objectMode: false }), contentLength: String(bytes.length) };
}

/** The stream asks for the next chunk once undici took the one before to write it: the body is on its way then. */
async function* writtenThenTold(bytes: Buffer, onSent: () => void): AsyncGenerator<Buffer> {
  yield bytes;
  onSent();
}

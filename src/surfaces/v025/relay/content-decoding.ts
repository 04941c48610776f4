import { brotliDecompressSync, constants, gunzipSync, inflateSync } from 'node:zlib';
import { contentCoding, createDecoder } from '../../../http/content-coding.js';

/**
 * The pass-through hands an agent's answer on as its bytes came, compressed or not, and reads a copy
 * to record the task it names (passthrough-record.ts). These decode that copy. The agent is not asked
 * to compress (the relay asks for identity), but a proxy in front of it may anyway.
 */

/** Bound on a decoded copy: what the gateway reads of an answer is its envelope, not a large file. */
const MAX_DECODED_BYTES = 8 * 1024 * 1024;

const utf8 = new TextDecoder();

/** A whole answer's text, or undefined when its coding cannot be read (or it decodes past the bound). */
export function decodedText(bytes: Uint8Array, contentEncoding: string | null): string | undefined {
  const coding = contentCoding(contentEncoding);
  if (coding === null) return undefined;
  if (coding === undefined) return utf8.decode(bytes);
  const options = { maxOutputLength: MAX_DECODED_BYTES };
  try {
    const plain =
      coding === 'gzip' ? gunzipSync(bytes, options) : coding === 'deflate' ? inflateSync(bytes, options) : brotliDecompressSync(bytes, options);
    return utf8.decode(plain);
  } catch {
    return undefined;
  }
}

/** A streaming decoder of a copy: each chunk in, what it decodes to so far out (null once it failed). */
export interface EncodedCopy {
  decode(chunk: Uint8Array): Promise<Uint8Array | null>;
  close(): void;
}

/** The decoder of a stream's copy, undefined when the stream is not encoded. */
export function encodedCopy(contentEncoding: string | null): EncodedCopy | undefined {
  const coding = contentCoding(contentEncoding);
  if (coding === undefined) return undefined;
  if (coding === null) return { decode: async () => null, close: () => undefined };
  const stream = createDecoder(coding);
  let failed = false;
  let decodedBytes = 0;
  const pending: Buffer[] = [];
  stream.on('data', (data: Buffer) => pending.push(data));
  stream.on('error', () => (failed = true));
  // A sync flush hands out everything the chunks so far decode to, so the task is found in the chunk that names it.
  const flushKind = coding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  return {
    async decode(chunk) {
      if (failed) return null;
      stream.write(chunk);
      await new Promise<void>((resolve) => stream.flush(flushKind, () => resolve()));
      if (failed) return null;
      const out = Buffer.concat(pending.splice(0));
      decodedBytes += out.length;
      return decodedBytes > MAX_DECODED_BYTES ? null : out;
    },
    close: () => stream.destroy(),
  };
}

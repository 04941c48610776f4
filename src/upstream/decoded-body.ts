import { text } from 'node:stream/consumers';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { A2AError } from '../model/index.js';

/** A response body as the gateway reads it: a Node stream with a text() shortcut, as undici's own body is. */
export type UpstreamBody = Readable & { text(): Promise<string> };

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  br: createBrotliDecompress,
  deflate: createInflate,
};

/**
 * The body of an upstream response with its `content-encoding` undone. The gateway asks for
 * identity, but an agent (or a proxy in front of it) may compress anyway: gzip, br and deflate are
 * decoded, as the bytes arrive (a compressed stream still yields each event when it is flushed).
 * Any other coding is -32006. Destroying the returned stream destroys the response too.
 */
export function decodedBody(response: Pick<Dispatcher.ResponseData, 'headers' | 'body'>): UpstreamBody {
  const header = response.headers['content-encoding'];
  const coding = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
  if (coding === '' || coding === 'identity') return response.body;
  const decoder = DECODERS[coding];
  if (!decoder) {
    response.body.destroy();
    throw A2AError.invalidAgentResponse('The upstream agent answered with an unsupported content-encoding');
  }
  const decoded = pipeline(response.body, decoder(), () => undefined) as unknown as UpstreamBody;
  decoded.text = () => text(decoded);
  return decoded;
}

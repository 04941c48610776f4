import { text } from 'node:stream/consumers';
import { pipeline, type Readable } from 'node:stream';
import { contentCoding, createDecoder } from '../http/content-coding.js';
import type { Dispatcher } from 'undici';
import { A2AError } from '../model/index.js';

/** A response body as the gateway reads it: a Node stream with a text() shortcut, as undici's own body is. */
export type UpstreamBody = Readable & { text(): Promise<string> };

/** An answer in a content coding the gateway cannot undo (-32006); the 0.2.5 relay reports it so too. */
export const unsupportedEncoding = (): A2AError => A2AError.invalidAgentResponse('The upstream agent answered with an unsupported content-encoding');

/**
 * The body of an upstream response with its `content-encoding` undone. The gateway asks for
 * identity, but an agent (or a proxy in front of it) may compress anyway: gzip, br and deflate are
 * decoded, as the bytes arrive (a compressed stream still yields each event when it is flushed).
 * Any other coding is -32006. Destroying the returned stream destroys the response too.
 */
export function decodedBody(response: Pick<Dispatcher.ResponseData, 'headers' | 'body'>): UpstreamBody {
  const coding = contentCoding(response.headers['content-encoding']);
  if (coding === undefined) return response.body;
  if (coding === null) {
    response.body.destroy();
    throw unsupportedEncoding();
  }
  const decoded = pipeline(response.body, createDecoder(coding), () => undefined) as unknown as UpstreamBody;
  decoded.text = () => text(decoded);
  return decoded;
}

/** How long a stream the caller no longer reads may take to end by itself before it is cut. */
const LET_END_MS = 250;
const ignore = (): void => undefined;

/**
 * A body the gateway stops reading before its end. When the caller's turn is over the agent is
 * usually about to end the stream itself: reading the rest (briefly) lets the response finish, so the
 * connection goes back to the pool and no abort error is built. A failed or still-running body is
 * cut at once (`failed`), or after LET_END_MS.
 */
export function releaseBody(body: Readable, failed: boolean): void {
  if (body.destroyed || body.readableEnded) return;
  body.on('error', ignore);
  if (failed) {
    body.destroy();
    return;
  }
  const cut = setTimeout(() => body.destroy(), LET_END_MS);
  cut.unref();
  const done = (): void => clearTimeout(cut);
  body.once('end', done);
  body.once('close', done);
  body.resume();
}

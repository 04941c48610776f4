import type { MiddlewareHandler } from 'hono';
import { contentCoding } from '../../http/content-coding.js';
import { A2AError } from '../../model/index.js';
import type { GatewayEnv } from './env.js';

/** Why a request's body was refused unread (or partly read): the HTTP layer's part of the answer depends on it. */
type BodyRefusal = 'too-large' | 'content-coding';

/** A refused body, and whether its connection must close: a body of unknown length left partly unread. */
interface Refused {
  why: BodyRefusal;
  close: boolean;
}

const refusedBodies = new WeakMap<Request, Refused>();

/**
 * `error`, once `request`'s body is noted as refused; `drained`: its rest was read off (`discardRest`), so the
 * connection may carry the next request. Otherwise `finishBodyRefusals` closes it after the answer.
 */
export function refusedBody(request: Request, why: BodyRefusal, error: A2AError, drained: boolean): A2AError {
  refusedBodies.set(request, { why, close: !drained });
  return error;
}

/** How much of a refused body is read off before the answer, at most: past either, the connection closes. */
const DISCARD_MAX_BYTES = 32 * 1024 * 1024;
const DISCARD_MAX_MS = 5_000;

/**
 * Reads the rest of a refused body and drops it; true once it has ended. Answering while the client still
 * uploads loses the answer whichever way: a kept connection is cut by the HTTP server's own short drain
 * (the client's next request on it gets "socket hang up"), a closed one resets the upload (EPIPE, and no
 * answer). So the answer waits for the upload, up to a bound (a client that never stops is cut).
 */
export async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  let read = 0;
  const bound = Date.now() + DISCARD_MAX_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, DISCARD_MAX_MS, 'late')));
  try {
    while (Date.now() < bound) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') break;
      if (next.done) return true;
      read += next.value.byteLength;
      if (read > DISCARD_MAX_BYTES) break;
    }
    await reader.cancel().catch(() => undefined);
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `request`'s body was refused for its content coding (answered with CONTENT_CODING_REFUSED_STATUS). */
export const refusedForItsCoding = (request: Request): boolean => refusedBodies.get(request)?.why === 'content-coding';

export const tooLarge = (): A2AError => A2AError.invalidRequest('Request payload too large');

/**
 * -32005 for a body sent with a Content-Encoding other than identity, or undefined when it has none.
 * Refused, not decoded: no A2A client compresses its requests, and undoing a coding would let a small
 * upload inflate past `max-body-bytes` (a zip bomb) before the limit could apply. RFC 9110 §15.5.16 and
 * RFC 7694: 415 with `Accept-Encoding` naming what the server takes.
 */
export function contentCodingRefusal(headers: Headers): A2AError | undefined {
  const declared = headers.get('content-encoding');
  if (contentCoding(declared) === undefined) return undefined;
  return A2AError.contentTypeNotSupported(
    `Content encoding not supported: Content-Encoding '${(declared ?? '').slice(0, 100)}'; send the body uncompressed (identity)`,
  );
}

/** The HTTP status of the content-coding refusal on every binding (JSON-RPC too: the body could not be read at all). */
export const CONTENT_CODING_REFUSED_STATUS = 415;

/**
 * The HTTP layer's part of a body refusal, whichever edge wrote the answer: `Connection: close`, so the
 * client neither sends its next request on a connection whose last body was left unread (where it would
 * be read as the rest of that body, or find the connection gone) nor loses the answer, which Node writes
 * whole before it closes; for a refused content coding, `Accept-Encoding: identity` too.
 */
export function finishBodyRefusals(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    await next();
    const refused = refusedBodies.get(c.req.raw);
    if (refused === undefined) return;
    const answer = c.res;
    const headers = new Headers(answer.headers);
    if (refused.close) headers.set('connection', 'close');
    if (refused.why === 'content-coding') headers.set('accept-encoding', 'identity');
    // A new Response: the answer's own headers may be immutable.
    c.res = new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
  };
}

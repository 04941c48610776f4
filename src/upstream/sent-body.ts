import { subscribe } from 'node:diagnostics_channel';

/**
 * A request body that tells `onSent` once undici has written it on the connection (CallContext.onMessageSent).
 * undici publishes `undici:request:bodySent` after it wrote a request's body to a connected socket, so a request
 * still queued for one of the pool's connections, connecting, or refused never tells. The body is a Buffer,
 * which undici keeps as the request's own (by identity): the message names the buffer, and the buffer names
 * the hook. A stream body would tell the same moment but costs a facade send some 15 % more instructions.
 */
export function bodyTellingSent(text: string, onSent: () => void): Buffer {
  listen();
  const body = Buffer.from(text, 'utf8');
  waiting.set(body, onSent);
  return body;
}

const waiting = new WeakMap<Buffer, () => void>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:bodySent', (message) => {
    const body = (message as { request?: { body?: unknown } }).request?.body;
    if (!Buffer.isBuffer(body)) return;
    const onSent = waiting.get(body);
    if (!onSent) return;
    waiting.delete(body);
    onSent();
  });
}

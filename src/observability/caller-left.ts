import type { Context } from 'hono';

/** What callerLeft reads of the Node response @hono/node-server serves the request with. */
interface NodeResponse {
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
}

/**
 * Whether the request's caller hung up before its answer was written out: under @hono/node-server, the Node
 * response was destroyed unfinished (what port-call.ts watches); called in-process (app.request), the request's
 * signal aborted. Read once a handler returned, and only when it matters: `c.req.raw.signal` makes node-server
 * create an AbortController, which is not read under it.
 */
export function callerLeft(c: Context): boolean {
  const outgoing = (c.env as { outgoing?: Partial<NodeResponse> } | undefined)?.outgoing;
  if (typeof outgoing?.destroyed === 'boolean') return outgoing.destroyed && outgoing.writableFinished !== true;
  return c.req.raw.signal.aborted;
}

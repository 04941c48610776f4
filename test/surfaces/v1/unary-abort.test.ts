/**
 * A unary call over a real socket (@hono/node-server + undici), as streaming.test.ts does for streams:
 * a client that goes away aborts the upstream call.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { StubPort, V1, buildApp } from '../support.js';
import { abortedBy, gate, listen, pooledClient } from './streaming-support.js';

const dispatcher = pooledClient();

describe('non-streaming calls over HTTP', () => {
  it('abort ctx.signal when the client disconnects (@hono/node-server aborts the request signal)', async () => {
    const entered = gate();
    const aborted = gate();
    const port = new StubPort({
      getTask: async (_r, ctx) => {
        ctx.signal.addEventListener('abort', () => aborted.open(), { once: true });
        entered.open();
        return abortedBy(ctx.signal);
      },
    });
    const server = await listen(buildApp({ port }).app);
    try {
      const client = new AbortController();
      const pending = request(`${server.url}/tasks/slow`, { dispatcher, headers: V1, signal: client.signal }).catch((error: Error) => error);
      await entered.opened;
      client.abort();
      await aborted.opened;
      expect(port.last().ctx.signal.aborted).toBe(true);
      expect(await pending).toBeInstanceOf(Error);
    } finally {
      await server.close();
    }
  });
});

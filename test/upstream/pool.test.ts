import { setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import type { StreamResponse } from '../../src/model/index.js';
import { createUpstreamPool } from '../../src/upstream/http.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { startFakeIacCode } from '../support/fake-iac-code.js';

const STREAMS = 200;

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** The first event of a stream, or a rejection when it does not come within `ms`. */
function firstEvent(stream: AsyncIterator<StreamResponse>, ms: number): Promise<StreamResponse> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no first event within ${ms} ms`)), ms);
  });
  return Promise.race([stream.next().then((result) => result.value as StreamResponse), late]).finally(() => clearTimeout(timer));
}

describe('upstream pool', () => {
  it('has no connection cap by default; 0 means none too', () => {
    expect(UpstreamConfig.parse({}).connections).toBeUndefined();
    expect(UpstreamConfig.parse({ connections: 0 }).connections).toBe(0);
    expect(UpstreamConfig.parse({ connections: 16 }).connections).toBe(16);
    expect(() => UpstreamConfig.parse({ connections: -1 })).toThrow();
    for (const connections of [undefined, 0, 16]) {
      const pool = createUpstreamPool(UpstreamConfig.parse(connections === undefined ? {} : { connections }));
      open.push(pool);
    }
  });

  it(`${STREAMS} concurrent streams through one default pool all get their first event`, async () => {
    const fake = await startFakeIacCode();
    open.push(fake);
    // Every stream sends one event and then stays open, holding its pooled connection.
    fake.injectFault({ name: 'hang-mid-stream', after: 1 }, { times: STREAMS });
    const upstream = createV1Upstream({ baseUrl: fake.url, config: UpstreamConfig.parse({}) });
    open.push(upstream);
    await upstream.fetchCard();

    const controller = new AbortController();
    // Until its headers come, each stream's request has two listeners on the signal: undici's, and requestOn's
    // (abortable-request.ts), which answers a request still queued for a connection.
    setMaxListeners(2 * STREAMS + 10, controller.signal);
    const streams = Array.from({ length: STREAMS }, (_, i) => {
      const request = { message: { messageId: `m-${i}`, role: 'ROLE_USER' as const, parts: [{ text: 'hold' }] } };
      return upstream.sendStreamingMessage(request, { principal: '', signal: controller.signal })[Symbol.asyncIterator]();
    });
    try {
      const firsts = await Promise.allSettled(streams.map((stream) => firstEvent(stream, 5_000)));
      const reached = firsts.filter((result) => result.status === 'fulfilled' && 'task' in result.value).length;
      expect(reached).toBe(STREAMS);
      expect(fake.rpcRequests('SendStreamingMessage')).toHaveLength(STREAMS);
    } finally {
      controller.abort();
      await Promise.allSettled(streams.map((stream) => stream.return?.() ?? Promise.resolve()));
    }
  }, 15_000);
});

/**
 * A gateway with `store: redis` whose `redis-url` names Sentinel (`redis+sentinel://`) instead of a
 * Redis: it starts (the start-up cluster check asks through the sentinel too) and records a turn's
 * task, under its caller, on the primary the sentinel names. A primary, a replica and a sentinel of
 * the test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { ownSentinel, type OwnSentinel } from '../../support/redis-sentinel.js';
import { userMessage } from '../../support/v1-message.js';
import { rpc } from '../../demo-agent/helpers.js';

let sentinel: OwnSentinel;
let gateway: TestGateway;

beforeAll(async () => {
  sentinel = await ownSentinel();
  gateway = await startDemoGateway({ store: 'redis', 'redis-url': sentinel.url, 'redis-prefix': 'sentinel-e2e:' });
}, 30_000);
afterAll(async () => {
  await gateway?.close();
  await sentinel?.stop();
});

describe('store: redis through Sentinel', () => {
  it("records a turn's task on the primary the sentinel names", async () => {
    const sent = await rpc(gateway.url, 'SendMessage', { message: userMessage('make a vpc') });
    expect(sent.error).toBeUndefined();
    const task = (sent.result as { task: { id: string } }).task;
    const primary = sentinel.direct(await sentinel.currentPrimary());
    primary.on('error', () => undefined);
    try {
      expect(await primary.hget(`sentinel-e2e:t:${task.id}`, 'o')).toBe('a2a-1.0:anonymous');
    } finally {
      primary.disconnect();
    }
    expect((await rpc(gateway.url, 'GetTask', { id: task.id })).result).toMatchObject({ id: task.id });
  });
});

/**
 * Redis going away under a gateway with `store: redis` (registry, turn lanes, task aliases, push configs
 * and queue): `/ready` answers 503 while it is gone and 200 once it is back, a call meanwhile gets a
 * JSON-RPC error instead of hanging, and no Redis client prints "Unhandled error event" stack traces.
 * The same while it answers but refuses writes.
 * A redis-server of the test's own, so it can be killed and started again on the same port.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { waitUntil } from '../../support/wait-until.js';

let redis: OwnRedis;
let gateway: TestGateway | undefined;
const consoleErrors = vi.spyOn(console, 'error');

const readyStatus = async (): Promise<number> => (await fetch(`${gateway!.url}/ready`)).status;

/** A JSON-RPC call's body, whatever its HTTP status: a turn refused for now while the registry is out of reach is HTTP 503. */
async function rpc(url: string, method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

const send = (text: string) => rpc(gateway!.url, 'SendMessage', sendMessageParams(text));

beforeAll(async () => {
  redis = await ownRedis();
  const url = redis.url;
  gateway = await startTestGateway({
    store: 'redis',
    'redis-url': url,
    'redis-prefix': `redis-outage-${randomBytes(4).toString('hex')}:`,
    'redis-command-timeout-ms': 1_000,
    'push-notifications': true,
    'push-queue': 'redis-streams',
    'push-redis-url': url,
    'push-keys': [`k1:${randomBytes(32).toString('base64')}`],
  });
});
afterAll(async () => {
  await gateway?.close();
  await redis.stop();
  consoleErrors.mockRestore();
});

describe('a gateway on store: redis when Redis goes away and comes back', () => {
  it('answers within redis-command-timeout-ms while Redis is frozen (connections open, nothing answered), is unready, and recovers', async () => {
    await waitUntil(async () => (await readyStatus()) === 200, 15_000);
    const before = (await send('before the freeze')).result as { task: { id: string; contextId: string } };
    redis.freeze();
    try {
      for (const [method, params] of [
        ['GetTask', { id: before.task.id }],
        ['ListTasks', {}],
        ['SendMessage', sendMessageParams('into a frozen context', { contextId: before.task.contextId })],
      ] as const) {
        const started = Date.now();
        const answer = await rpc(gateway!.url, method, params);
        expect(answer.error, method).toMatchObject({ code: -32603 });
        expect(Date.now() - started, method).toBeLessThan(4_000);
      }
      // A write that got no answer says the registry cannot take writes: the balancer should look elsewhere.
      await waitUntil(async () => (await readyStatus()) === 503, 10_000);
    } finally {
      redis.thaw();
    }
    await waitUntil(async () => (await readyStatus()) === 200, 15_000);
    expect((await send('after the freeze')).result).toBeDefined();
  }, 60_000);

  it('is unready while Redis is gone, answers calls with an error, and is ready and working again after', async () => {
    await waitUntil(async () => (await readyStatus()) === 200);
    expect((await send('before')).result).toBeDefined();

    await redis.stop();
    await waitUntil(async () => (await readyStatus()) === 503);
    const during = await send('during');
    expect(during.error).toMatchObject({ code: -32603 });
    expect(JSON.stringify(during)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\bat .+:\d+/);

    await redis.start();
    await waitUntil(async () => (await readyStatus()) === 200, 15_000);
    expect((await send('after')).result).toBeDefined();

    const unhandled = consoleErrors.mock.calls.filter((call) => String(call[0]).includes('Unhandled error event'));
    expect(unhandled).toEqual([]);
  }, 60_000);

  it('is unready while Redis answers but refuses writes (out of memory under noeviction), and ready again once it takes them', async () => {
    await waitUntil(async () => (await readyStatus()) === 200, 15_000);
    const admin = new Redis(redis.url);
    try {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      // Reads still work, so the turn is answered; its task cannot be recorded, and the replica says so.
      expect((await send('refused')).result).toBeDefined();
      await waitUntil(async () => (await readyStatus()) === 503);

      await admin.config('SET', 'maxmemory', '0');
      await waitUntil(async () => (await readyStatus()) === 200, 15_000);
      const task = ((await send('taken again')).result as { task: { id: string } }).task;
      expect(await admin.keys(`*t:${task.id}`)).toHaveLength(1);
    } finally {
      admin.disconnect();
    }
  }, 60_000);
});

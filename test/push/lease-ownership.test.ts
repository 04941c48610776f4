/**
 * A replica renews only the leases of entries still pending under it: one that stalled past a lease and
 * had its entries taken over by another replica must not claim them back on its next renewal, and must
 * not deliver a waiting entry it lost when that entry's turn comes. Against real Redis.
 */
import { expect, it } from 'vitest';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import { newPushJob } from '../../src/push/queue/types.js';
import { redisQueueRun } from './redis-queue-run.js';

const run = redisQueueRun('lease-owner');
const names = run.names();
const { stream, group } = names;

const LEASE_MS = 800;

function replica(consumer: string) {
  const queue = createRedisStreamsQueue({
    ...names,
    consumer,
    leaseTimeoutMs: LEASE_MS,
    blockMs: 50,
    concurrency: 2,
  });
  run.cleanup.push(() => queue.stop());
  return queue;
}

async function owners(): Promise<Map<string, string>> {
  const rows = (await run.redis.xpending(stream, group, '-', '+', 10)) as Array<[string, string, number, number]>;
  return new Map(rows.map(([id, consumer]) => [id, consumer]));
}

it('entries taken over by another replica stay its own: not renewed back, not delivered by the one that lost them', async () => {
  const deliveredBy = new Map<string, string[]>();
  const note = (who: string, eventId: string) => deliveredBy.set(eventId, [...(deliveredBy.get(eventId) ?? []), who]);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const a = replica('replica-a');
  // Cleanup runs last-pushed first: the gate opens before A is stopped, should an expectation fail.
  run.cleanup.push(() => release());
  // Two notifications to one webhook: the first in flight at A (held at the gate), the second waiting behind it.
  for (const eventId of ['first', 'second'])
    await a.enqueue(newPushJob({ eventId, taskId: 't', configId: 'c', owner: 'o', url: 'http://127.0.0.1:9/x', payload: '{}' }));
  a.start(async (job) => {
    note('a', job.eventId);
    await gate;
    return { outcome: 'delivered' };
  });
  await expect.poll(() => deliveredBy.get('first')?.length ?? 0, { timeout: 5_000, interval: 20 }).toBe(1);
  const [firstId, secondId] = [...(await owners()).keys()] as [string, string];

  // B takes both over, as its XAUTOCLAIM would once A stalled past a lease, and renews them as a live
  // replica does (else they would be stale again a lease later, and A right to take them back).
  const renewAsB = () => run.redis.xclaim(stream, group, 'replica-b', 0, firstId, secondId, 'JUSTID');
  await renewAsB();
  const bRenewing = setInterval(() => void renewAsB(), LEASE_MS / 4);
  run.cleanup.push(() => clearInterval(bRenewing));
  // A's renewals run several times meanwhile (every quarter lease).
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
  expect(await owners()).toEqual(
    new Map([
      [firstId, 'replica-b'],
      [secondId, 'replica-b'],
    ]),
  );

  // The first was on the wire already; the second's turn comes at A, which no longer owns it.
  release();
  await expect.poll(async () => (await owners()).has(firstId), { timeout: 5_000, interval: 20 }).toBe(false);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(deliveredBy.get('second')).toBeUndefined();
  expect((await owners()).get(secondId)).toBe('replica-b');

  // A stops; B (the process, now running) takes its entry over from its own stale lease and delivers
  // it: once, and only there.
  await a.stop();
  clearInterval(bRenewing);
  const b = replica('replica-b');
  b.start(async (job) => {
    note('b', job.eventId);
    return { outcome: 'delivered' };
  });
  await expect.poll(() => run.redis.xlen(stream), { timeout: 5_000, interval: 50 }).toBe(0);
  expect(Object.fromEntries(deliveredBy)).toEqual({ first: ['a'], second: ['b'] });
}, 20_000);

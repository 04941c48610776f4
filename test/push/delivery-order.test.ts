/**
 * A webhook gets one config's notifications one at a time, in the order they were queued, while other
 * webhooks keep being served. Deliveries are real HTTP posts to a local receiver. Nothing is timed: the
 * receiver holds the first notification of config A (WORKING) open until config B's notification, queued
 * after A's second one (COMPLETED), has arrived. With two deliveries allowed at once, a queue that sends
 * A's second while its first is open has sent it before B's (both slots are taken by A until COMPLETED
 * is answered), so COMPLETED arriving while WORKING is still open is the defect, and B never arriving
 * would be a webhook holding the others.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPushHandler } from '../../src/push/dispatch.js';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue, type RedisStreamsQueueOptions } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { startReceiver, type Received, type Receiver } from './fixtures/receiver.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

const run = `test-push-order-${process.pid}-${randomBytes(4).toString('hex')}`;
const cleanup: Array<() => unknown> = [];
let redis: Redis | undefined;

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
afterAll(async () => {
  if (!redis) return;
  const keys = await redis.keys(`${run}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const deliver = createPushHandler({ allowPrivate: true, timeoutMs: 30_000, resolveHeaders: async () => ({}) });

/** What the webhook saw of each request, in arrival order: its path, state, and how many of that path were still open. */
interface Arrival {
  path: string;
  state: string;
  openOfSamePath: number;
}

interface OrderedWebhook {
  receiver: Receiver;
  arrivals: Arrival[];
  /** States of `path` in the order the webhook answered them. */
  answered: Record<string, string[]>;
  /** Releases the held first request of /a (only the test's own `release` trigger calls this otherwise). */
  releaseHeld(): void;
}

const stateOf = (request: Received) => (JSON.parse(request.body) as { state: string }).state;

/**
 * Holds the first request to /a open until a request to `releaseOn` arrives; every other request is
 * answered at once.
 */
async function orderedWebhook(releaseOn: string): Promise<OrderedWebhook> {
  const open = new Map<string, number>();
  const arrivals: Arrival[] = [];
  const answered: Record<string, string[]> = {};
  let held: (() => void) | undefined;
  let heldOnce = false;
  const answer = (request: Received, response: ServerResponse) => {
    open.set(request.path, (open.get(request.path) ?? 1) - 1);
    (answered[request.path] ??= []).push(stateOf(request));
    response.end('ok');
  };
  const receiver = await startReceiver((request, response) => {
    arrivals.push({ path: request.path, state: stateOf(request), openOfSamePath: open.get(request.path) ?? 0 });
    open.set(request.path, (open.get(request.path) ?? 0) + 1);
    if (request.path === '/a' && !heldOnce) {
      heldOnce = true;
      held = () => answer(request, response);
    } else {
      answer(request, response);
    }
    if (request.path === releaseOn) releaseHeld();
  });
  function releaseHeld() {
    const release = held;
    held = undefined;
    release?.();
  }
  // A failed test must not leave the held delivery open: the queue's stop waits for it.
  cleanup.push(() => receiver.close());
  cleanup.push(releaseHeld);
  return { receiver, arrivals, answered, releaseHeld };
}

function job(receiver: Receiver, configId: string, state: string): PushJob {
  return newPushJob({
    eventId: `${configId}-${state}`,
    taskId: 'task-1',
    configId,
    owner: 'alice',
    url: `${receiver.url}/${configId}`,
    payload: JSON.stringify({ state }),
  });
}

/** A's WORKING then COMPLETED, then B's COMPLETED: queued before the worker starts, in this order. */
function scenario(receiver: Receiver): PushJob[] {
  return [job(receiver, 'a', 'WORKING'), job(receiver, 'a', 'COMPLETED'), job(receiver, 'b', 'COMPLETED')];
}

function expectOrdered(webhook: OrderedWebhook): void {
  // B got through while A's first notification was held: A's lane held no one else.
  expect(webhook.arrivals.map((arrival) => arrival.path)).toEqual(['/a', '/b', '/a']);
  // A's second notification was sent only once the first was answered, so it is seen after it.
  expect(webhook.arrivals.filter((arrival) => arrival.path === '/a')).toEqual([
    { path: '/a', state: 'WORKING', openOfSamePath: 0 },
    { path: '/a', state: 'COMPLETED', openOfSamePath: 0 },
  ]);
  expect(webhook.answered['/a']).toEqual(['WORKING', 'COMPLETED']);
}

describe('delivery order per webhook', () => {
  it('local-file queue: one delivery at a time per webhook, the others go on meanwhile', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-order-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const webhook = await orderedWebhook('/b');
    const queue: PushQueue = createLocalFileQueue({ dir, concurrency: 2 });
    cleanup.push(() => queue.stop());
    for (const next of scenario(webhook.receiver)) await queue.enqueue(next);
    queue.start(deliver);

    await webhook.receiver.waitFor(3);
    expectOrdered(webhook);
  });

  describe('redis-streams queue', () => {
    beforeAll(requireRedis);
    beforeAll(() => {
      redis = new Redis(REDIS_URL);
    });

    let counter = 0;
    function names(): Pick<RedisStreamsQueueOptions, 'url' | 'stream' | 'retryKey' | 'deadStream' | 'group'> {
      counter += 1;
      const base = `${run}:${counter}`;
      return { url: REDIS_URL, stream: `${base}:push`, retryKey: `${base}:push:retry`, deadStream: `${base}:push:dead`, group: `${base}-group` };
    }

    function worker(options: RedisStreamsQueueOptions) {
      const created = createRedisStreamsQueue(options);
      cleanup.push(() => created.stop());
      return created;
    }

    it('one delivery at a time per webhook, the others go on meanwhile', async () => {
      const webhook = await orderedWebhook('/b');
      const queue = worker({ ...names(), leaseTimeoutMs: 60_000, blockMs: 50, concurrency: 2 });
      for (const next of scenario(webhook.receiver)) await queue.enqueue(next);
      queue.start(deliver);

      await webhook.receiver.waitFor(3);
      expectOrdered(webhook);
    });

    it('at stop, an entry waiting behind its webhook is let go of after the delivery ahead of it, not kept for a lease', async () => {
      const shared = names();
      // Released by the test, not by another request.
      const webhook = await orderedWebhook('/none');
      const stopping = worker({ ...shared, leaseTimeoutMs: 60_000, blockMs: 50, concurrency: 2 });
      const [working, completed] = scenario(webhook.receiver) as [PushJob, PushJob];
      await stopping.enqueue(working);
      await stopping.enqueue(completed);
      stopping.start(deliver);
      await webhook.receiver.waitFor(1);

      const stopped = stopping.stop();
      webhook.releaseHeld();
      await stopped;
      // Another replica takes COMPLETED over at its first round, not after the 60 s lease.
      const taker = worker({ ...shared, leaseTimeoutMs: 60_000, blockMs: 50, concurrency: 2 });
      taker.start(deliver);
      await webhook.receiver.waitFor(2);
      expect(webhook.arrivals).toEqual([
        { path: '/a', state: 'WORKING', openOfSamePath: 0 },
        { path: '/a', state: 'COMPLETED', openOfSamePath: 0 },
      ]);
    });

    it('an entry waiting behind its webhook keeps its lease: another replica does not take it over meanwhile', async () => {
      const shared = names();
      const leaseTimeoutMs = 2_000;
      const webhook = await orderedWebhook('/none');
      const holder = worker({ ...shared, leaseTimeoutMs, blockMs: 50, concurrency: 2 });
      for (const next of scenario(webhook.receiver).slice(0, 2)) await holder.enqueue(next);
      holder.start(deliver);
      await webhook.receiver.waitFor(1);
      // A second replica looks for stale entries every 50 ms while WORKING stays open for two leases.
      worker({ ...shared, leaseTimeoutMs, blockMs: 50, concurrency: 2 }).start(deliver);
      await new Promise((resolve) => setTimeout(resolve, 2 * leaseTimeoutMs));
      expect(webhook.arrivals).toHaveLength(1);

      webhook.releaseHeld();
      await webhook.receiver.waitFor(2);
      expect(webhook.arrivals.map((arrival) => [arrival.state, arrival.openOfSamePath])).toEqual([
        ['WORKING', 0],
        ['COMPLETED', 0],
      ]);
    });
  });
});

/**
 * A webhook gets one config's notifications one at a time, in the order they were queued, while other
 * webhooks keep being served. Deliveries are real HTTP posts to a local receiver. Nothing is timed: the
 * receiver holds the first notification of config A (WORKING) open until config B's notification, queued
 * after A's second one (COMPLETED), has arrived. With two deliveries allowed at once, a queue that sends
 * A's second while its first is open has sent it before B's (both slots are taken by A until COMPLETED
 * is answered), so COMPLETED arriving while WORKING is still open is the defect, and B never arriving
 * would be a webhook holding the others.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPushHandler } from '../../src/push/dispatch.js';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue, type RedisStreamsQueueOptions } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushHandler, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { startReceiver, type Received, type Receiver } from './fixtures/receiver.js';
import { redisQueueRun } from './redis-queue-run.js';

const run = redisQueueRun('order');
const { cleanup } = run;

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
    const names = () => run.names();

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

    /**
     * Deliveries through `deliverWithin` (a push timeout below the lease, as the config rule asks), each
     * recorded with the replica that made it; every request to the webhook is answered after `holdMs`.
     */
    async function slowWebhook(holdMs: number, deliverWithin: number) {
      const byReplica: Array<[replica: string, configId: string, state: string]> = [];
      const receiver = await startReceiver((_request, response) => void setTimeout(() => response.end('ok'), holdMs));
      cleanup.push(() => receiver.close());
      const handler = createPushHandler({ allowPrivate: true, timeoutMs: deliverWithin, resolveHeaders: async () => ({}) });
      const deliverAs =
        (replica: string): PushHandler =>
        async (next) => {
          byReplica.push([replica, next.configId, (JSON.parse(next.payload) as { state: string }).state]);
          return handler(next);
        };
      return { receiver, byReplica, deliverAs };
    }

    it('an entry waiting behind its webhook keeps its lease: another replica does not take it over meanwhile', async () => {
      const shared = names();
      const leaseTimeoutMs = 2_000;
      // Each delivery ends well within the push timeout, itself below the lease; COMPLETED waits behind
      // three of them, 1.5 leases in all.
      const webhook = await slowWebhook(1_000, 1_800);
      const holder = worker({ ...shared, leaseTimeoutMs, blockMs: 50, concurrency: 2 });
      for (const state of ['WORKING-1', 'WORKING-2', 'WORKING-3', 'COMPLETED']) await holder.enqueue(job(webhook.receiver, 'a', state));
      holder.start(webhook.deliverAs('holder'));
      await webhook.receiver.waitFor(1);
      // A second replica looks for stale entries every 50 ms meanwhile.
      worker({ ...shared, leaseTimeoutMs, blockMs: 50, concurrency: 2 }).start(webhook.deliverAs('other'));

      await webhook.receiver.waitFor(4, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(webhook.byReplica).toEqual([
        ['holder', 'a', 'WORKING-1'],
        ['holder', 'a', 'WORKING-2'],
        ['holder', 'a', 'WORKING-3'],
        ['holder', 'a', 'COMPLETED'],
      ]);
    }, 20_000);

    it('an entry that waited behind its webhook keeps its lease while it is delivered, even with every slot busy', async () => {
      const shared = names();
      // Push timeout below the lease (the config rule); each delivery takes most of it. B's delivery takes
      // the second slot, so the worker only waits for deliveries to end meanwhile.
      const leaseTimeoutMs = 1_500;
      const webhook = await slowWebhook(1_000, 1_300);
      const holder = worker({ ...shared, leaseTimeoutMs, blockMs: 50, concurrency: 2 });
      for (const next of scenario(webhook.receiver)) await holder.enqueue(next);
      holder.start(webhook.deliverAs('holder'));
      await webhook.receiver.waitFor(2);
      worker({ ...shared, leaseTimeoutMs, blockMs: 50, concurrency: 2 }).start(webhook.deliverAs('other'));

      // A's COMPLETED waited about 1 s behind WORKING, then is delivered for about 1 s more.
      await webhook.receiver.waitFor(3, 10_000);
      // Past the end of COMPLETED's delivery plus a lease: a takeover would have shown by then.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(webhook.byReplica).toEqual([
        ['holder', 'a', 'WORKING'],
        ['holder', 'b', 'COMPLETED'],
        ['holder', 'a', 'COMPLETED'],
      ]);
    }, 20_000);
  });
});

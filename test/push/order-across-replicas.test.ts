/**
 * One webhook's notifications arrive in the order they were queued while two replicas read the queue side
 * by side, and a crashed replica's entry, taken over after its lease, still goes before the newer ones.
 * Real HTTP to a local receiver that keeps each request open a moment, so two replicas delivering one
 * webhook at once would overlap on the wire, and real Redis.
 */
import { describe, expect, it } from 'vitest';
import { createPushHandler } from '../../src/push/dispatch.js';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushHandler, type PushJob } from '../../src/push/queue/types.js';
import { startReceiver, type Received } from './fixtures/receiver.js';
import { redisQueueRun, type QueueNames } from './redis-queue-run.js';

const run = redisQueueRun('order-replicas');
const LEASE_MS = 600;
const deliver = createPushHandler({ allowPrivate: true, timeoutMs: 10_000, resolveHeaders: async () => ({}) });

/** A webhook that answers each request after `holdMs` and notes how many were open at once. */
async function slowWebhook(holdMs: number) {
  let open = 0;
  let mostOpen = 0;
  const receiver = await startReceiver((_request, response) => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    setTimeout(() => {
      open -= 1;
      response.end('ok');
    }, holdMs);
  });
  run.cleanup.push(() => receiver.close());
  return { receiver, mostOpen: () => mostOpen };
}

function replica(names: QueueNames, consumer: string, delivered: Map<string, number>, maxWaitingEntries?: number) {
  const queue = createRedisStreamsQueue({ ...names, consumer, leaseTimeoutMs: LEASE_MS, blockMs: 50, concurrency: 8, maxWaitingEntries });
  run.cleanup.push(() => queue.stop());
  const counted: PushHandler = async (job) => {
    delivered.set(consumer, (delivered.get(consumer) ?? 0) + 1);
    return deliver(job);
  };
  return { queue, start: () => queue.start(counted) };
}

const jobFor = (url: string, seq: number): PushJob =>
  newPushJob({ eventId: `task-1:${seq}`, taskId: 'task-1', configId: 'cfg', owner: 'alice', url, payload: JSON.stringify({ seq }) });

const seqs = (received: Received[]) => received.map((request) => (JSON.parse(request.body) as { seq: number }).seq);

describe('push delivery order across replicas (redis-streams)', () => {
  it('delivers one webhook’s notifications one at a time, in queue order, while two replicas consume', async () => {
    const names = run.names();
    const webhook = await slowWebhook(15);
    const delivered = new Map<string, number>();
    const first = replica(names, 'replica-a', delivered);
    const second = replica(names, 'replica-b', delivered);
    first.start();
    second.start();
    const count = 40;
    for (let seq = 0; seq < count; seq += 1) await first.queue.enqueue(jobFor(webhook.receiver.url, seq));

    const received = await webhook.receiver.waitFor(count, 20_000);
    expect(seqs(received)).toEqual(Array.from({ length: count }, (_, seq) => seq));
    expect(webhook.mostOpen()).toBe(1);
    // Both replicas took part: the order held across them, not because one did all the work.
    expect(delivered.get('replica-a')).toBeGreaterThan(0);
    expect(delivered.get('replica-b')).toBeGreaterThan(0);
  }, 30_000);

  it('delivers a crashed replica’s older entry, taken over after its lease, before the newer ones', async () => {
    const names = run.names();
    const webhook = await slowWebhook(5);
    const first = replica(names, 'replica-a', new Map());
    // Queued through the queue (its line included), then read by a replica that dies before delivering it.
    await first.queue.enqueue(jobFor(webhook.receiver.url, 0));
    await run.redis.xgroup('CREATE', names.stream, names.group, '0', 'MKSTREAM');
    await run.redis.xreadgroup('GROUP', names.group, 'crashed', 'COUNT', 1, 'STREAMS', names.stream, '>');
    for (let seq = 1; seq < 5; seq += 1) await first.queue.enqueue(jobFor(webhook.receiver.url, seq));
    first.start();
    replica(names, 'replica-b', new Map()).start();

    const received = await webhook.receiver.waitFor(5, 10_000);
    expect(seqs(received)).toEqual([0, 1, 2, 3, 4]);
  }, 15_000);

  it('a replica whose every waiting entry waits for a crashed replica’s still takes that one over', async () => {
    const names = run.names();
    const webhook = await slowWebhook(1);
    const first = replica(names, 'replica-a', new Map(), 3);
    await first.queue.enqueue(jobFor(webhook.receiver.url, 0));
    await run.redis.xgroup('CREATE', names.stream, names.group, '0', 'MKSTREAM');
    await run.redis.xreadgroup('GROUP', names.group, 'crashed', 'COUNT', 1, 'STREAMS', names.stream, '>');
    // More than the replica keeps waiting: it is at its bound, every entry parked behind the crashed one's.
    for (let seq = 1; seq < 20; seq += 1) await first.queue.enqueue(jobFor(webhook.receiver.url, seq));
    first.start();

    const received = await webhook.receiver.waitFor(20, 10_000);
    expect(seqs(received)).toEqual(Array.from({ length: 20 }, (_, seq) => seq));
  }, 15_000);

  it('a replica at its bound whose entries wait for another replica’s delivery fetches no more meanwhile', async () => {
    const names = run.names();
    // The first notification is answered after a while; the others at once.
    const receiver = await startReceiver((request, response) => {
      const [seq] = seqs([request]);
      setTimeout(() => response.end('ok'), seq === 0 ? 1_200 : 0);
    });
    run.cleanup.push(() => receiver.close());
    const options = { ...names, leaseTimeoutMs: LEASE_MS, blockMs: 50 };
    const holder = createRedisStreamsQueue({ ...options, consumer: 'holder', concurrency: 1 });
    run.cleanup.push(() => holder.stop());
    holder.start(deliver);
    await holder.enqueue(jobFor(receiver.url, 0));
    await receiver.waitFor(1);
    const count = 40;
    for (let seq = 1; seq < count; seq += 1) await holder.enqueue(jobFor(receiver.url, seq));
    const maxWaitingEntries = 3;
    const concurrency = 8;
    const waiting = createRedisStreamsQueue({ ...options, consumer: 'waiting', concurrency, maxWaitingEntries });
    run.cleanup.push(() => waiting.stop());
    waiting.start(deliver);

    const held: number[] = [];
    while (receiver.received.length < 2) {
      const pending = await run.redis.xpending(names.stream, names.group, '-', '+', count, 'waiting');
      held.push(pending.length);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Its waiting entries at the bound plus one fetch: what they wait for is not in the unread part of the stream.
    expect(held.length).toBeGreaterThan(10);
    expect(Math.max(...held)).toBeLessThanOrEqual(maxWaitingEntries + concurrency);
    expect(seqs(await receiver.waitFor(count, 10_000))).toEqual(Array.from({ length: count }, (_, seq) => seq));
  }, 15_000);
});

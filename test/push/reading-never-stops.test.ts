/**
 * A replica keeps reading new stream entries whatever it holds or takes over: a backlog of thousands to
 * one slow webhook that outlives a lease, or a crashed replica's thousands of stale entries, must not keep
 * a notification to another webhook waiting. Against real Redis.
 */
import { expect, it } from 'vitest';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushHandler, type PushJob } from '../../src/push/queue/types.js';
import { redisQueueRun } from './redis-queue-run.js';

const run = redisQueueRun('reading');

const job = (configId: string, n: number): PushJob =>
  newPushJob({ eventId: `${configId}-${n}`, taskId: 't', configId, owner: 'o', url: `http://127.0.0.1:9/${configId}`, payload: '{}' });

async function addSlowBacklog(stream: string, count: number): Promise<void> {
  const pipeline = run.redis.pipeline();
  for (let n = 0; n < count; n++) pipeline.xadd(stream, '*', 'job', JSON.stringify(job('slow', n)));
  await pipeline.exec();
}

/** `slow` deliveries take longer than the test; `fast` ones resolve `fastSeen`. Call after the queue's stop is in `cleanup`. */
function slowAndFast() {
  let seen: () => void = () => undefined;
  const fastSeen = new Promise<void>((resolve) => (seen = resolve));
  let stopped = false;
  const handler: PushHandler = async (next) => {
    if (next.configId === 'fast') {
      seen();
      return { outcome: 'delivered' };
    }
    // Ends early at cleanup so stop() need not wait it out.
    for (let waited = 0; waited < 30_000 && !stopped; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    return { outcome: 'delivered' };
  };
  run.cleanup.push(() => (stopped = true));
  return { handler, fastSeen };
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);

it('a backlog of thousands to one slow webhook, older than a lease, does not stop the replica reading', async () => {
  const names = run.names();
  const leaseTimeoutMs = 1_000;
  const queue = createRedisStreamsQueue({ ...names, leaseTimeoutMs, blockMs: 50, concurrency: 2 });
  run.cleanup.push(() => queue.stop());
  await addSlowBacklog(names.stream, 8_000);
  const webhooks = slowAndFast();
  queue.start(webhooks.handler);

  // Every entry read (held behind the first slow delivery), then a lease and more gone by.
  await expect.poll(async () => (await run.redis.xpending(names.stream, names.group))[0], { timeout: 10_000, interval: 50 }).toBe(8_000);
  await new Promise((resolve) => setTimeout(resolve, leaseTimeoutMs + 300));
  await queue.enqueue(job('fast', 0));
  await within(webhooks.fastSeen, 2_000, 'the notification to another webhook');
}, 20_000);

it('a round that takes over stale entries still reads new ones', async () => {
  const names = run.names();
  const leaseTimeoutMs = 300;
  await run.redis.xgroup('CREATE', names.stream, names.group, '0', 'MKSTREAM');
  // A crashed replica read 3,000 entries to one slow webhook; its leases have run out.
  await addSlowBacklog(names.stream, 3_000);
  await run.redis.xreadgroup('GROUP', names.group, 'crashed-replica', 'COUNT', 3_000, 'STREAMS', names.stream, '>');
  await new Promise((resolve) => setTimeout(resolve, leaseTimeoutMs + 100));
  const queue = createRedisStreamsQueue({ ...names, leaseTimeoutMs, blockMs: 50, concurrency: 2 });
  run.cleanup.push(() => queue.stop());
  await queue.enqueue(job('fast', 0));
  const webhooks = slowAndFast();
  queue.start(webhooks.handler);

  await within(webhooks.fastSeen, 3_000, 'the notification to another webhook');
  // Read in one of the first rounds, not after every stale entry was taken over one free slot at a time.
  const [, , , perConsumer] = (await run.redis.xpending(names.stream, names.group)) as [number, string, string, Array<[string, string]>];
  const leftWithCrashed = Number(perConsumer.find(([consumer]) => consumer === 'crashed-replica')?.[1] ?? 0);
  expect(leftWithCrashed).toBeGreaterThan(2_000);
}, 20_000);

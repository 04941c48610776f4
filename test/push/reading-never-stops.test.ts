/**
 * A replica keeps reading new stream entries whatever it holds or takes over: a backlog of thousands to
 * one slow webhook that outlives a lease, or a crashed replica's thousands of stale entries, must not keep
 * a notification to another webhook waiting. Against real Redis.
 */
import { expect, it } from 'vitest';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushHandler, type PushJob } from '../../src/push/queue/types.js';
import { redisQueueRun, type QueueNames } from './redis-queue-run.js';

const run = redisQueueRun('reading');

const job = (configId: string, n: number): PushJob =>
  newPushJob({ eventId: `${configId}-${n}`, taskId: 't', configId, owner: 'o', url: `http://127.0.0.1:9/${configId}`, payload: '{}' });

/** Adds `count` entries to the `slow` webhook; the last one's id. */
async function addSlowBacklog(stream: string, count: number): Promise<string> {
  const pipeline = run.redis.pipeline();
  for (let n = 0; n < count; n++) pipeline.xadd(stream, '*', 'job', JSON.stringify(job('slow', n)));
  const added = (await pipeline.exec()) ?? [];
  return added.at(-1)?.[1] as string;
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
    for (let waited = 0; waited < 120_000 && !stopped; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    return { outcome: 'delivered' };
  };
  run.cleanup.push(() => (stopped = true));
  return { handler, fastSeen };
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);

/** How long reading may go without one more entry read before it counts as stopped: far past a loaded host's round. */
const STALLED_MS = 5_000;

/** The newest entry the group's consumers read and did not finish: the last read while the slow webhook holds them. */
async function newestPending(names: QueueNames): Promise<string | undefined> {
  // NOGROUP: the queue has not made its group yet.
  const summary = await run.redis.xpending(names.stream, names.group).catch(() => []);
  return (summary as unknown[])[2] as string | undefined;
}

/**
 * Resolves once the entry `lastId` is read; rejects once no entry more was read for STALLED_MS. With one slot
 * free the queue reads one entry a round, and a loaded host's rounds (behind the renewals of thousands of leases)
 * read a few dozen entries a second: how long all take is no bound here, only reading stopping is.
 */
async function readUpTo(names: QueueNames, lastId: string): Promise<void> {
  let read: string | undefined;
  let lastReadAt = performance.now();
  while (read !== lastId) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await newestPending(names);
    if (now !== read) [read, lastReadAt] = [now, performance.now()];
    else if (performance.now() - lastReadAt > STALLED_MS) throw new Error(`reading stopped at entry ${read} (the last is ${lastId})`);
  }
}

it('a backlog of thousands to one slow webhook, older than a lease, does not stop the replica reading', async () => {
  const names = run.names();
  // Short, so reading the backlog takes several leases: a replica that let some of it go (once, past 1,000
  // waiting to a webhook) took it over again a lease later, round after round, and read nothing new.
  const leaseTimeoutMs = 500;
  const queue = createRedisStreamsQueue({ ...names, leaseTimeoutMs, blockMs: 50, concurrency: 2 });
  run.cleanup.push(() => queue.stop());
  const lastId = await addSlowBacklog(names.stream, 3_000);
  const webhooks = slowAndFast();
  queue.start(webhooks.handler);

  // Every entry read (held behind the first slow delivery), so the notification below is the only one left
  // unread; then a lease and more go by.
  await readUpTo(names, lastId);
  await new Promise((resolve) => setTimeout(resolve, leaseTimeoutMs + 300));
  await queue.enqueue(job('fast', 0));
  await within(webhooks.fastSeen, 5_000, 'the notification to another webhook');
}, 120_000);

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

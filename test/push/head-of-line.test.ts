/**
 * One webhook's backlog must not hold the others: a notification to a free webhook, queued after many to
 * a slow one, goes out while the slow one's are still being delivered one at a time. Against real Redis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue, type RedisStreamsQueueOptions } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushHandler, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { redisQueueRun } from './redis-queue-run.js';

const run = redisQueueRun('hol');
const { cleanup } = run;

const job = (configId: string, n: number): PushJob =>
  newPushJob({ eventId: `${configId}-${n}`, taskId: 't', configId, owner: 'o', url: `http://127.0.0.1:9/${configId}`, payload: '{}' });

/**
 * Delivers `slow` jobs in `slowMs` each and `fast` ones at once; resolves `fastSeen` with how many slow
 * deliveries had ended when the fast one arrived. Also counts deliveries per event id.
 */
function slowAndFast(slowMs: number) {
  const delivered = new Map<string, number>();
  let slowEnded = 0;
  let seen: (ended: number) => void = () => undefined;
  const fastSeen = new Promise<number>((resolve) => (seen = resolve));
  const handler: PushHandler = async (next) => {
    delivered.set(next.eventId, (delivered.get(next.eventId) ?? 0) + 1);
    if (next.configId === 'fast') {
      seen(slowEnded);
      return { outcome: 'delivered' };
    }
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    slowEnded += 1;
    return { outcome: 'delivered' };
  };
  return { handler, fastSeen, delivered, slowEnded: () => slowEnded };
}

async function enqueueBacklog(queue: PushQueue, slow: number): Promise<void> {
  for (let n = 0; n < slow; n++) await queue.enqueue(job('slow', n));
  await queue.enqueue(job('fast', 0));
}

describe('a webhook with a backlog does not hold the others', () => {
  it('local-file queue', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-hol-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const queue = createLocalFileQueue({ dir, concurrency: 2 });
    cleanup.push(() => queue.stop());
    await enqueueBacklog(queue, 45);
    const webhooks = slowAndFast(50);
    queue.start(webhooks.handler);
    // One slot stays free throughout: the fast one goes at once, not after the slow ones.
    expect(await webhooks.fastSeen).toBeLessThanOrEqual(1);
  });

  describe('redis-streams queue', () => {
    function worker(options: Partial<RedisStreamsQueueOptions>) {
      const names = run.names();
      const created = createRedisStreamsQueue({ ...names, leaseTimeoutMs: 60_000, blockMs: 50, concurrency: 2, ...options });
      cleanup.push(() => created.stop());
      return { queue: created, deadStream: names.deadStream, stream: names.stream, group: names.group };
    }

    it('more entries behind one webhook than the replica keeps waiting', async () => {
      const { queue } = worker({});
      // Past the old limit of 16 waiting per slot (32 here).
      await enqueueBacklog(queue, 45);
      // Slow enough that a loaded host's late read of the stream (it ran 200 ms late in CI) still finds the fast one first.
      const webhooks = slowAndFast(300);
      queue.start(webhooks.handler);
      expect(await webhooks.fastSeen).toBeLessThanOrEqual(1);
    });

    it('past the bound on waiting entries the replica fetches no more until some are delivered, and every one is delivered once', async () => {
      const maxWaitingEntries = 5;
      const concurrency = 2;
      // Lease short and attempts few: a held entry that was let go of, or not renewed, would show.
      const { queue, deadStream, stream, group } = worker({ leaseTimeoutMs: 600, maxWaitingEntries, concurrency, retry: { maxAttempts: 2 } });
      await enqueueBacklog(queue, 40);
      const webhooks = slowAndFast(40);
      let mostHeld = 0;
      const sampling = setInterval(() => {
        void run.redis.xpending(stream, group).then((summary) => {
          mostHeld = Math.max(mostHeld, Number((summary as [number])[0]));
        });
      }, 10);
      cleanup.push(() => clearInterval(sampling));
      queue.start(webhooks.handler);

      await expect.poll(() => webhooks.slowEnded(), { timeout: 15_000, interval: 100 }).toBe(40);
      // Waiting ids at the bound, then at most one more fetch (one per free slot); plus the one in flight.
      expect(mostHeld).toBeGreaterThan(0);
      expect(mostHeld).toBeLessThanOrEqual(maxWaitingEntries + concurrency);
      await webhooks.fastSeen;
      expect([...webhooks.delivered.values()].every((times) => times === 1)).toBe(true);
      expect(webhooks.delivered.size).toBe(41);
      expect(await run.redis.xlen(deadStream)).toBe(0);
      await expect.poll(() => run.redis.xlen(stream), { timeout: 2_000 }).toBe(0);
    }, 20_000);
  });
});

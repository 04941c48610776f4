/**
 * A retry whose attempt may have arrived (given up at `push-timeout-ms` after the request went out) leaves
 * its webhook's line, and stays out of it: after a restart of the local-file queue it does not hold the
 * webhook's later notifications again, and in Redis it does not take the place of a retry of the same
 * webhook that kept its place and falls due the same millisecond. Real Redis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/push/queue/journal.js';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import { DEFAULT_RETRY_POLICY, dispose, type RetryPolicy } from '../../src/push/queue/retry-policy.js';
import { newPushJob, type DeliveryResult, type PushHandler, type PushJob } from '../../src/push/queue/types.js';
import { webhookOrder, type WebhookOrder } from '../../src/push/queue/webhook-order.js';
import { redisQueueRun } from './redis-queue-run.js';

const run = redisQueueRun('retry-left-line');
const { cleanup } = run;

const RETRY: RetryPolicy = { ...DEFAULT_RETRY_POLICY, initialDelayMs: 300, jitter: 0 };
const EVENTS = ['task-1:0', 'task-1:1', 'task-1:2'];
const TIMED_OUT: DeliveryResult = { outcome: 'retry', error: 'delivery timed out', mayHaveArrived: true };
const REFUSED: DeliveryResult = { outcome: 'retry', status: 503, error: 'HTTP 503' };

/** `n`-th notification of one webhook; its job id sorts with `n`, so equal-due retries are brought back in that order. */
const jobOf = (n: number): PushJob => ({
  ...newPushJob({ eventId: EVENTS[n]!, taskId: 'task-1', configId: 'cfg', owner: 'alice', url: 'http://127.0.0.1:9/hook', payload: '{}' }),
  jobId: `job-${n}`,
});

/** Notes every attempt; `answer` decides its result (delivered when it says nothing). */
function receiver(answer: (job: PushJob) => DeliveryResult | undefined = () => undefined) {
  const delivered: string[] = [];
  const handler: PushHandler = async (job) => {
    const result = answer(job) ?? { outcome: 'delivered' };
    if (result.outcome === 'delivered') delivered.push(job.eventId);
    return result;
  };
  return { delivered, handler };
}

/** What the queue records when entry `id`'s attempt failed with `result` at `now` (redis-outcomes.ts). */
async function recordRetry(order: WebhookOrder, retryKey: string, stream: string, job: PushJob, id: string, result: DeliveryResult, now: number) {
  const next = dispose(job, result, RETRY, now);
  if (next.kind !== 'retry') throw new Error('expected a retry');
  await order.reschedule(run.redis.multi().zadd(retryKey, next.job.nextAttemptAt, JSON.stringify(next.job)).xdel(stream, id), next.job, id).exec();
}

describe('a retry that left its webhook’s line stays out of it', () => {
  it('local-file queue: after a restart it does not hold its webhook’s later notifications', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-left-line-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const retry = { ...RETRY, initialDelayMs: 5_000 };
    const first = createLocalFileQueue({ dir, retry });
    let timedOut: () => void = () => undefined;
    const attempted = new Promise<void>((resolve) => (timedOut = resolve));
    first.start(async () => {
      timedOut();
      return TIMED_OUT;
    });
    await first.enqueue(jobOf(0));
    await attempted;
    await first.stop();

    const second = createLocalFileQueue({ dir, retry });
    cleanup.push(() => second.stop());
    const webhook = receiver();
    second.start(webhook.handler);
    await second.enqueue(jobOf(1));
    // Goes at once, as it would have without the restart, not once the retry (5 s away) is due.
    await expect.poll(() => webhook.delivered, { timeout: 2_000, interval: 20 }).toEqual([EVENTS[1]]);
    // The retry still waits.
    await expect.poll(() => second.depth!(), { timeout: 1_000, interval: 20 }).toBe(1);
  });

  it('local-file queue: a retry journaled by the release before keepsPlace (when every retry left the line) stays out of it after the upgrade', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-left-line-old-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const { journal } = await Journal.open(dir);
    const old = jobOf(0);
    await journal.append({ t: 'enqueue', job: old });
    await journal.append({ t: 'retry', job: { ...old, attempt: 1, lastError: 'HTTP 503', nextAttemptAt: Date.now() + 5_000 } });
    await journal.close();

    const upgraded = createLocalFileQueue({ dir, retry: { ...RETRY, initialDelayMs: 5_000 } });
    cleanup.push(() => upgraded.stop());
    const webhook = receiver();
    upgraded.start(webhook.handler);
    await upgraded.enqueue(jobOf(1));
    await expect.poll(() => webhook.delivered, { timeout: 2_000, interval: 20 }).toEqual([EVENTS[1]]);
  });

  it('redis-streams queue: it does not take the place of a retry that kept its place, due the same millisecond', async () => {
    const names = run.names();
    const order = webhookOrder(run.redis, names.stream, names.retryKey);
    const jobs = [0, 1, 2].map(jobOf);
    const ids: string[] = [];
    for (const job of jobs) ids.push(String(await order.enqueue(job)));
    // The first given up after its request went out (it leaves the line), then the second refused (it keeps
    // its place), both retried RETRY.initialDelayMs after the same millisecond.
    const now = Date.now();
    await recordRetry(order, names.retryKey, names.stream, jobs[0]!, ids[0]!, TIMED_OUT, now);
    await recordRetry(order, names.retryKey, names.stream, jobs[1]!, ids[1]!, REFUSED, now);

    const queue = createRedisStreamsQueue({ ...names, leaseTimeoutMs: 5_000, blockMs: 50, retry: RETRY });
    cleanup.push(() => queue.stop());
    const webhook = receiver();
    queue.start(webhook.handler);
    await expect.poll(() => webhook.delivered.length, { timeout: 4_000, interval: 20 }).toBe(EVENTS.length);
    // The refused one in its place, before the third; the one that left the line after it.
    expect(webhook.delivered).toEqual([EVENTS[1], EVENTS[2], EVENTS[0]]);
  });
});

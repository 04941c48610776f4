/**
 * A receiver that is down for a while (its own deploy: 503 to every notification) and then back gets one
 * task's notifications in the order the gateway noticed them, each once: the one that failed keeps its
 * place at the head of its webhook's line while it waits for its retry, and the ones queued behind it
 * during the outage wait too, instead of overtaking it (COMPLETED before the last artifact chunk, or a
 * WORKING dropped as stale once COMPLETED got through). Other webhooks are not held meanwhile, and one
 * dead-lettered frees the line. Real HTTP to a local receiver, stale dropping as the gateway wires it,
 * the local-file queue and real Redis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPushHandler } from '../../src/push/dispatch.js';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue, type RedisStreamsQueueOptions } from '../../src/push/queue/redis-streams.js';
import type { RetryPolicy } from '../../src/push/queue/retry-policy.js';
import { newPushJob, type PushHandler, type PushJob, type PushLogger, type PushQueue } from '../../src/push/queue/types.js';
import { createMemoryDeliveredStates, createRedisDeliveredStates, skippingStale, type DeliveredStates } from '../../src/push/stale-notifications.js';
import { startReceiver, type Received } from './fixtures/receiver.js';
import { redisQueueRun } from './redis-queue-run.js';

const run = redisQueueRun('retry-order');
const { cleanup } = run;

/** Retries a few tens of milliseconds apart (jitter kept), so an outage of a few refusals lasts well under a second. */
const FAST_RETRY: Partial<RetryPolicy> = { initialDelayMs: 50, multiplier: 2, maxDelayMs: 400, jitter: 0.2 };

/** One turn of task-1 as config `a` is sent it: a state, two artifact chunks, the end. */
const TURN = [
  { seq: 0, kind: 'WORKING', state: true },
  { seq: 1, kind: 'chunk-1', state: false },
  { seq: 2, kind: 'chunk-2', state: false },
  { seq: 3, kind: 'COMPLETED', state: true },
];

interface Body {
  seq: number;
  kind: string;
}

interface Arrival {
  path: string;
  seq: number;
  status: number;
}

function jobOf(url: string, configId: string, step: (typeof TURN)[number], noticedAt: number): PushJob {
  return newPushJob({
    eventId: `task-1:${configId}:${step.seq}`,
    taskId: 'task-1',
    configId,
    owner: 'alice',
    url: `${url}/${configId}`,
    payload: JSON.stringify({ seq: step.seq, kind: step.kind }),
    noticedAt,
    ...(step.state ? { stateAt: noticedAt } : {}),
  });
}

/**
 * A receiver whose `/a` answers 503 while `refuses` says so (`/b` always answers 200). `arrivals` is every
 * request in arrival order with the answer it got.
 */
async function outageReceiver(refuses: (body: Body, arrivals: Arrival[]) => boolean) {
  const arrivals: Arrival[] = [];
  const receiver = await startReceiver((request: Received, response) => {
    const body = JSON.parse(request.body) as Body;
    const refuse = request.path === '/a' && refuses(body, arrivals);
    response.statusCode = refuse ? 503 : 200;
    arrivals.push({ path: request.path, seq: body.seq, status: response.statusCode });
    response.end();
  });
  cleanup.push(() => receiver.close());
  const accepted = (path: string) => arrivals.filter((a) => a.path === path && a.status === 200).map((a) => a.seq);
  return { receiver, arrivals, accepted };
}

/** The gateway's handler: stale notifications dropped (as service.ts wires it), then real HTTP. */
function gatewayHandler(states: DeliveredStates, logger: PushLogger): PushHandler {
  const deliver = createPushHandler({ allowPrivate: true, timeoutMs: 5_000, resolveHeaders: async () => ({}) });
  return skippingStale(deliver, states, logger);
}

/** Catches the dead-letter log line of each job. */
function deadLetters() {
  const jobIds: unknown[] = [];
  const logger: PushLogger = {
    info: () => undefined,
    warn: () => undefined,
    error: (fields, message) => {
      if (message === 'A2A push notification dead-lettered') jobIds.push((fields as { jobId?: unknown }).jobId);
    },
  };
  return { jobIds, logger };
}

interface Setup {
  /** Where jobs are queued (a replica's queue). */
  queue: PushQueue;
  /** Starts every replica (one for the local-file queue) with `handler`. */
  start(handler: PushHandler): void;
  states: DeliveredStates;
}

/** Queues (every replica) made with this retry policy and logger. */
type MakeSetup = (retry: Partial<RetryPolicy>, logger: PushLogger) => Promise<Setup>;

/**
 * The outage: the first of the turn is queued and refused, the rest of the turn (and config `b`'s one
 * notification) are queued while the receiver still refuses; it comes back after three refusals, once
 * config b's notification got through (so all were queued during the outage, however slow the disk).
 */
async function receiverComesBack(make: MakeSetup): Promise<void> {
  const webhook = await outageReceiver(
    (_body, arrivals) => arrivals.filter((a) => a.status === 503).length < 3 || !arrivals.some((a) => a.path === '/b'),
  );
  const dead = deadLetters();
  const setup = await make(FAST_RETRY, dead.logger);
  setup.start(gatewayHandler(setup.states, dead.logger));
  const base = Date.now();
  await setup.queue.enqueue(jobOf(webhook.receiver.url, 'a', TURN[0]!, base));
  await webhook.receiver.waitFor(1);
  for (const step of TURN.slice(1)) await setup.queue.enqueue(jobOf(webhook.receiver.url, 'a', step, base + step.seq));
  await setup.queue.enqueue(jobOf(webhook.receiver.url, 'b', TURN[3]!, base + 10));

  await expect.poll(() => webhook.accepted('/a').length, { timeout: 8_000, interval: 20 }).toBe(TURN.length);
  await expect.poll(() => setup.queue.depth!(), { timeout: 4_000, interval: 20 }).toBe(0);
  // In the order noticed, each once, none dropped as stale.
  expect(webhook.accepted('/a')).toEqual([0, 1, 2, 3]);
  // Only the head was tried while the receiver refused: nothing queued behind it went ahead.
  const refused = webhook.arrivals.filter((a) => a.path === '/a' && a.status === 503).map((a) => a.seq);
  expect(refused.length).toBeGreaterThanOrEqual(3);
  expect(new Set(refused)).toEqual(new Set([0]));
  // Config b's webhook was not held by a's outage.
  const firstOfA = webhook.arrivals.findIndex((a) => a.path === '/a' && a.status === 200);
  expect(webhook.arrivals.findIndex((a) => a.path === '/b')).toBeLessThan(firstOfA);
  expect(webhook.accepted('/b')).toEqual([3]);
  expect(dead.jobIds).toEqual([]);
}

/** The head is refused until it is dead-lettered: the rest of the turn then goes, in order, and only then. */
async function headDeadLettered(make: MakeSetup): Promise<void> {
  const webhook = await outageReceiver((body) => body.seq === 0);
  const dead = deadLetters();
  const setup = await make({ ...FAST_RETRY, maxAttempts: 3 }, dead.logger);
  setup.start(gatewayHandler(setup.states, dead.logger));
  const base = Date.now();
  const jobs = TURN.map((step) => jobOf(webhook.receiver.url, 'a', step, base + step.seq));
  for (const next of jobs) await setup.queue.enqueue(next);

  await expect.poll(() => webhook.accepted('/a').length, { timeout: 8_000, interval: 20 }).toBe(3);
  await expect.poll(() => setup.queue.depth!(), { timeout: 4_000, interval: 20 }).toBe(0);
  expect(dead.jobIds).toEqual([jobs[0]!.jobId]);
  expect(webhook.arrivals.map((a) => [a.seq, a.status])).toEqual([
    [0, 503],
    [0, 503],
    [0, 503],
    [1, 200],
    [2, 200],
    [3, 200],
  ]);
}

describe('a failing notification keeps its place in its webhook’s line until delivered or dead-lettered', () => {
  describe('local-file queue', () => {
    const localFile: MakeSetup = async (retry, logger) => {
      const dir = await mkdtemp(join(tmpdir(), 'push-retry-order-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      const queue = createLocalFileQueue({ dir, retry, concurrency: 2, logger });
      cleanup.push(() => queue.stop());
      return { queue, start: (handler) => queue.start(handler), states: createMemoryDeliveredStates() };
    };

    it('a receiver back after an outage gets the turn in the order noticed, each once', async () => {
      await receiverComesBack(localFile);
    });

    it('a head dead-lettered frees the line', async () => {
      await headDeadLettered(localFile);
    });
  });

  describe('redis-streams queue', () => {
    const replicas =
      (count: number): MakeSetup =>
      async (retry, logger) => {
        const names = run.names();
        const options: RedisStreamsQueueOptions = { ...names, leaseTimeoutMs: 5_000, blockMs: 50, concurrency: 2, retry, logger };
        const queues = Array.from({ length: count }, (_, n) => createRedisStreamsQueue({ ...options, consumer: `replica-${n}` }));
        for (const queue of queues) cleanup.push(() => queue.stop());
        return {
          queue: queues[0]!,
          start: (handler) => queues.forEach((queue) => queue.start(handler)),
          states: createRedisDeliveredStates(run.redis, `${names.stream}:`),
        };
      };

    it('one replica: a receiver back after an outage gets the turn in the order noticed, each once', async () => {
      await receiverComesBack(replicas(1));
    });

    it('two replicas: a receiver back after an outage gets the turn in the order noticed, each once', async () => {
      await receiverComesBack(replicas(2));
    });

    it('a head dead-lettered frees the line', async () => {
      await headDeadLettered(replicas(2));
    });
  });
});

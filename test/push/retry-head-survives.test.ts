/**
 * A failed notification's place at the head of its webhook's line outlives the process holding it: the
 * local-file queue stopped while the head waits for its retry still sends it first after the restart,
 * and a replica killed while delivering the head's retry (SIGKILL, in a process of its own) frees it
 * after its lease, to the replica holding the later ones, which send it first. Real Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue, type RedisStreamsQueueOptions } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushHandler, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { fixtureNodeArgs } from '../support/run-cli.js';
import { redisQueueRun } from './redis-queue-run.js';

const WORKER = fileURLToPath(new URL('./fixtures/redis-worker.ts', import.meta.url));
const run = redisQueueRun('retry-head');
const { cleanup } = run;

/** The head's retry comes due after the queue was stopped (or the replica killed), not before. */
const RETRY = { initialDelayMs: 300, multiplier: 2, maxDelayMs: 1_000, jitter: 0 };
const EVENTS = ['task-1:0', 'task-1:1', 'task-1:2'];

const jobOf = (eventId: string): PushJob =>
  newPushJob({ eventId, taskId: 'task-1', configId: 'cfg', owner: 'alice', url: 'http://127.0.0.1:9/hook', payload: '{}' });

/**
 * Refuses the turn's first notification (`times` times) and delivers the others; every delivery is noted
 * in `delivered`. `refused` settles once the first was refused.
 */
function refusingTheFirst(delivered: string[], times = Infinity) {
  let refusedNow: () => void = () => undefined;
  const refused = new Promise<void>((resolve) => (refusedNow = resolve));
  let refusals = 0;
  const handler: PushHandler = async (job) => {
    if (job.eventId === EVENTS[0] && refusals < times) {
      refusals += 1;
      refusedNow();
      return { outcome: 'retry', status: 503, error: 'HTTP 503' };
    }
    delivered.push(job.eventId);
    return { outcome: 'delivered' };
  };
  return { handler, refused };
}

const delivering =
  (delivered: string[]): PushHandler =>
  async (job) => {
    delivered.push(job.eventId);
    return { outcome: 'delivered' };
  };

async function queueTurn(queue: PushQueue): Promise<void> {
  for (const eventId of EVENTS) await queue.enqueue(jobOf(eventId));
}

describe('a failed head keeps its place', () => {
  it('local-file queue: across a restart while it waits for its retry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-retry-head-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const delivered: string[] = [];
    const first = createLocalFileQueue({ dir, retry: RETRY });
    await queueTurn(first);
    const refusing = refusingTheFirst(delivered);
    first.start(refusing.handler);
    await refusing.refused;
    await first.stop();

    const second = createLocalFileQueue({ dir, retry: RETRY });
    cleanup.push(() => second.stop());
    second.start(delivering(delivered));
    await expect.poll(() => delivered.length, { timeout: 4_000, interval: 20 }).toBe(EVENTS.length);
    expect(delivered).toEqual(EVENTS);
  });

  it('redis-streams queue: a replica killed delivering its retry frees it after the lease', async () => {
    const names = run.names();
    const options: RedisStreamsQueueOptions = { ...names, leaseTimeoutMs: 500, blockMs: 50, retry: RETRY };
    const delivered: string[] = [];
    const first = createRedisStreamsQueue({ ...options, consumer: 'first' });
    cleanup.push(() => first.stop());
    await queueTurn(first);
    const refusing = refusingTheFirst(delivered);
    first.start(refusing.handler);
    await refusing.refused;
    await first.stop();

    // Brings the retry back when it is due, takes it, and hangs delivering it until killed.
    const doomed = spawnWorker({ ...options, consumer: 'doomed' });
    await expect.poll(() => doomed.lines.includes(`claimed ${EVENTS[0]}`), { timeout: 10_000, interval: 20 }).toBe(true);
    doomed.child.kill('SIGKILL');
    await once(doomed.child, 'exit');

    const survivor = createRedisStreamsQueue({ ...options, consumer: 'survivor' });
    cleanup.push(() => survivor.stop());
    survivor.start(delivering(delivered));
    await expect.poll(() => delivered.length, { timeout: 6_000, interval: 20 }).toBe(EVENTS.length);
    expect(delivered).toEqual(EVENTS);
    expect(doomed.lines.filter((line) => line.startsWith('claimed'))).toEqual([`claimed ${EVENTS[0]}`]);
  }, 20_000);

  it('redis-streams queue: a replica at its bound holds no more while the retry is not due, then brings it back', async () => {
    const events = Array.from({ length: 40 }, (_, n) => `task-1:${n}`);
    const maxWaitingEntries = 3;
    const concurrency = 8;
    const names = run.names();
    const retry = { ...RETRY, initialDelayMs: 800 };
    const queue = createRedisStreamsQueue({ ...names, leaseTimeoutMs: 5_000, blockMs: 50, maxWaitingEntries, concurrency, retry });
    cleanup.push(() => queue.stop());
    for (const eventId of events) await queue.enqueue(jobOf(eventId));
    const delivered: string[] = [];
    // Every entry this replica holds then waits for the retry: only this replica can bring it back.
    const refusing = refusingTheFirst(delivered, 1);
    queue.start(refusing.handler);
    await refusing.refused;
    const held: number[] = [];
    const retryDueAt = Date.now() + retry.initialDelayMs;
    while (Date.now() < retryDueAt - 150) {
      held.push(Number(((await run.redis.xpending(names.stream, names.group)) as [number])[0]));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The waiting entries at the bound plus one fetch, however long the retry takes to fall due.
    expect(held.length).toBeGreaterThan(10);
    expect(Math.max(...held)).toBeLessThanOrEqual(maxWaitingEntries + concurrency);
    await expect.poll(() => delivered.length, { timeout: 5_000, interval: 20 }).toBe(events.length);
    expect(delivered).toEqual(events);
  });
});

/** The fixture worker in a process of its own; `lines` fills with what it prints. */
function spawnWorker(options: RedisStreamsQueueOptions): { child: ChildProcess; lines: string[] } {
  const child = spawn(process.execPath, [...fixtureNodeArgs(WORKER), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanup.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
  return { child, lines };
}

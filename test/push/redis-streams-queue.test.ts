import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPushHandler } from '../../src/push/dispatch.js';
import { createRedisStreamsQueue, type RedisStreamsQueueOptions } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { fixtureNodeArgs } from '../support/run-cli.js';
import { startReceiver, type Receiver } from './fixtures/receiver.js';
import { Recorder } from './fixtures/recorder.js';
import { redisQueueRun } from './redis-queue-run.js';

const WORKER = fileURLToPath(new URL('./fixtures/redis-worker.ts', import.meta.url));
const run = redisQueueRun('q');

const fastRetry = { initialDelayMs: 20, multiplier: 2, maxDelayMs: 200, jitter: 0.2, maxAttempts: 3 };

function queue(options: RedisStreamsQueueOptions): PushQueue & { consumer: string } {
  const created = createRedisStreamsQueue(options);
  run.cleanup.push(() => created.stop());
  return created;
}

async function receiver(status = 200): Promise<Receiver> {
  const started = await startReceiver((_req, res) => {
    res.statusCode = status;
    res.end();
  });
  run.cleanup.push(() => started.close());
  return started;
}

/** A job of a config of its own: a worker delivers to one config one job at a time, and these tests are about its window. */
const jobTo = (target: Receiver, eventId: string): PushJob =>
  newPushJob({ eventId, taskId: 'task-1', configId: `cfg-${eventId}`, owner: '', url: `${target.url}/hook`, payload: JSON.stringify({ eventId }) });

const receivedIds = (target: Receiver) => target.received.map((r) => (JSON.parse(r.body) as { eventId: string }).eventId);

async function deadEntries(stream: string): Promise<Array<{ job: PushJob; reason: string }>> {
  const entries = (await run.redis.xrange(stream, '-', '+')) as Array<[string, string[]]>;
  return entries.map(([, fields]) => {
    const map = new Map<string, string>();
    for (let i = 0; i < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
    return { job: JSON.parse(map.get('job') ?? '{}') as PushJob, reason: map.get('reason') ?? '' };
  });
}

function spawnWorker(options: RedisStreamsQueueOptions): { child: ChildProcess; lines: AsyncIterator<string> } {
  const child = spawn(process.execPath, [...fixtureNodeArgs(WORKER), JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  run.cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  return { child, lines };
}

async function nextLine(lines: AsyncIterator<string>, timeoutMs = 10_000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('worker said nothing')), timeoutMs);
  });
  try {
    const next = await Promise.race([lines.next(), timeout]);
    if (next.done) throw new Error('worker exited');
    return next.value;
  } finally {
    clearTimeout(timer);
  }
}

describe('redis-streams push queue', () => {
  it('loses nothing when a worker is SIGKILLed holding jobs, and dead-letters only the failing job', async () => {
    const shared = run.names();
    const ok = await receiver(200);
    const failing = await receiver(503);
    const okIds = Array.from({ length: 8 }, (_, i) => `ok-${i}`);

    const producer = queue({ ...shared, leaseTimeoutMs: 500 });
    await producer.enqueue(jobTo(failing, 'fails-always'));
    for (const id of okIds) await producer.enqueue(jobTo(ok, id));

    // The doomed worker starts 4 and hangs on them; every slot busy with one owner's, it reads on (for
    // another owner's, owner-turns.ts) and holds the other 5 waiting too.
    const crashed = spawnWorker({ ...shared, consumer: `${run.prefix}-doomed`, leaseTimeoutMs: 500, concurrency: 4, blockMs: 100 });
    expect(await nextLine(crashed.lines)).toBe(`started ${run.prefix}-doomed`);
    const claimed = [await nextLine(crashed.lines), await nextLine(crashed.lines), await nextLine(crashed.lines), await nextLine(crashed.lines)];
    expect(claimed).toEqual(['claimed fails-always', 'claimed ok-0', 'claimed ok-1', 'claimed ok-2']);
    const pending = async () => (await run.redis.xpending(shared.stream, shared.group)) as [number, string, string, Array<[string, string]>];
    await expect.poll(async () => (await pending())[0], { timeout: 5_000 }).toBe(9);
    expect((await pending())[3]).toEqual([[`${run.prefix}-doomed`, '9']]);
    crashed.child.kill('SIGKILL');
    await once(crashed.child, 'exit');

    const recorder = new Recorder();
    const survivor = queue({ ...shared, leaseTimeoutMs: 500, concurrency: 4, blockMs: 100, retry: fastRetry, logger: recorder.logger });
    const deliver = createPushHandler({ allowPrivate: true, timeoutMs: 2_000, resolveHeaders: async () => ({}) });
    survivor.start(async (job) => recorder.handler(job).then(() => deliver(job)));

    await ok.waitFor(okIds.length);
    await recorder.until((r) => r.dead.length === 1);
    const lost = okIds.filter((id) => !receivedIds(ok).includes(id));
    expect(lost).toEqual([]);
    expect(failing.received).toHaveLength(fastRetry.maxAttempts);

    const dead = await deadEntries(shared.deadStream);
    expect(dead.map((entry) => entry.job.eventId)).toEqual(['fails-always']);
    expect(dead[0]?.job.attempt).toBe(fastRetry.maxAttempts);
    expect(dead[0]?.reason).toMatch(/gave up after 3 attempts: HTTP 503/);
    expect(await run.redis.zcard(shared.retryKey)).toBe(0);
    const after = (await run.redis.xpending(shared.stream, shared.group)) as [number];
    expect(after[0]).toBe(0);
  });

  it('shares one group between replicas: every job is delivered, retries included', async () => {
    const shared = run.names();
    const target = await receiver(200);
    let flaky = 0;
    const recorder = new Recorder((job) => {
      if (job.eventId === 'flaky' && flaky++ < 1) return { outcome: 'retry', error: 'HTTP 503' };
      return { outcome: 'delivered' };
    });
    const replicas = [1, 2].map(() => queue({ ...shared, leaseTimeoutMs: 5_000, blockMs: 100, retry: fastRetry, logger: recorder.logger }));
    for (const replica of replicas) replica.start(recorder.handler);
    const ids = [...Array.from({ length: 20 }, (_, i) => `job-${i}`), 'flaky'];
    await Promise.all(ids.map((id) => (replicas[0] as PushQueue).enqueue(jobTo(target, id))));

    await recorder.until((r) => ids.every((id) => r.calls.some((call) => call.job.eventId === id && (id !== 'flaky' || call.job.attempt === 1))));
    expect(recorder.eventIds().filter((id) => id === 'flaky')).toHaveLength(2);
    expect(recorder.dead).toEqual([]);
    expect(await deadEntries(shared.deadStream)).toEqual([]);
  });

  it('keeps other webhooks served while one never answers: a sliding window, not a batch', async () => {
    const shared = run.names();
    const open: ServerResponse[] = [];
    const hanging = await startReceiver((_req, res) => void open.push(res));
    run.cleanup.push(() => hanging.close());
    const healthy = await receiver(200);
    const worker = queue({ ...shared, leaseTimeoutMs: 60_000, blockMs: 100, concurrency: 2 });
    // Runs before the worker stops (cleanup goes last first): its delivery in flight then ends.
    run.cleanup.push(() => open.forEach((res) => res.end()));
    worker.start(createPushHandler({ allowPrivate: true, timeoutMs: 60_000, resolveHeaders: async () => ({}) }));

    await worker.enqueue(jobTo(hanging, 'hangs'));
    await hanging.waitFor(1);
    const ids = Array.from({ length: 5 }, (_, i) => `ok-${i}`);
    for (const id of ids) await worker.enqueue(jobTo(healthy, id));
    await healthy.waitFor(ids.length);

    expect(receivedIds(healthy)).toEqual(ids);
    // All of them arrived while the first delivery still waits for its answer.
    expect(open).toHaveLength(1);
    expect(open[0]?.writableEnded).toBe(false);
    expect(open[0]?.socket?.destroyed).toBe(false);
  });

  it('dead-letters an entry whose lease expired more often than the attempts allow (a job that kills its workers)', async () => {
    const shared = run.names();
    const producer = queue({ ...shared, leaseTimeoutMs: 50 });
    await producer.enqueue(newPushJob({ eventId: 'poison', taskId: 't', configId: 'c', owner: '', url: 'https://x.example/', payload: '{}' }));
    await run.redis.xgroup('CREATE', shared.stream, shared.group, '0', 'MKSTREAM');
    const read = (await run.redis.call('XREADGROUP', 'GROUP', shared.group, 'ghost', 'COUNT', 1, 'STREAMS', shared.stream, '>')) as Array<
      [string, Array<[string, string[]]>]
    >;
    const entryId = read[0]?.[1][0]?.[0] as string;
    // As if it had been handed out and abandoned by three crashed workers already.
    await run.redis.call('XCLAIM', shared.stream, shared.group, 'ghost', 0, entryId, 'RETRYCOUNT', 3);

    const recorder = new Recorder();
    const worker = queue({ ...shared, leaseTimeoutMs: 50, blockMs: 50, retry: fastRetry, logger: recorder.logger });
    worker.start(recorder.handler);
    await recorder.until((r) => r.dead.length === 1);
    expect(recorder.calls).toEqual([]);
    const dead = await deadEntries(shared.deadStream);
    expect(dead.map((entry) => [entry.job.eventId, entry.reason])).toEqual([['poison', 'delivery lease expired 3 times']]);
  });

  it('stop() lets the delivery in flight finish and records its outcome', async () => {
    const shared = run.names();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const recorder = new Recorder(async () => {
      await gate;
      return { outcome: 'delivered' };
    });
    const worker = createRedisStreamsQueue({ ...shared, leaseTimeoutMs: 5_000, blockMs: 100 });
    worker.start(recorder.handler);
    await worker.enqueue(newPushJob({ eventId: 'e1', taskId: 't', configId: 'c', owner: '', url: 'https://x.example/', payload: '{}' }));
    await recorder.until((r) => r.calls.length === 1);
    const stopping = worker.stop();
    release();
    await stopping;
    const pending = (await run.redis.xpending(shared.stream, shared.group)) as [number];
    expect(pending[0]).toBe(0);
    expect(await run.redis.xlen(shared.stream)).toBe(0);
  });
});

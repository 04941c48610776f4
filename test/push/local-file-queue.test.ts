import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalFileQueue, type LocalFileQueueOptions } from '../../src/push/queue/local-file.js';
import { newPushJob, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { Recorder } from './fixtures/recorder.js';

let dir: string;
const queues: PushQueue[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'push-queue-'));
});
afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.stop()));
  await rm(dir, { recursive: true, force: true });
});

const fastRetry = { initialDelayMs: 20, multiplier: 2, maxDelayMs: 1_000, jitter: 0, maxAttempts: 3 };

function queue(options: Partial<LocalFileQueueOptions> = {}): PushQueue {
  const created = createLocalFileQueue({ dir, retry: fastRetry, ...options });
  queues.push(created);
  return created;
}

async function stop(target: PushQueue): Promise<void> {
  queues.splice(queues.indexOf(target), 1);
  await target.stop();
}

const job = (eventId: string): PushJob =>
  newPushJob({ eventId, taskId: 't1', configId: 'c1', owner: '', url: 'https://hooks.example.com/', payload: `{"e":"${eventId}"}` });

const journalLines = async () => (await readFile(join(dir, 'push', 'journal.jsonl'), 'utf8')).split('\n').filter(Boolean);

/** Event ids the journal describes as live, replayed the way the queue replays it. */
function liveEventIds(lines: string[]): string[] {
  const live = new Map<string, string>();
  for (const line of lines) {
    const record = JSON.parse(line) as { t: string; job?: PushJob; jobId?: string };
    if (record.job) live.set(record.job.jobId, record.job.eventId);
    else live.delete(record.jobId ?? '');
  }
  return [...live.values()].sort();
}

describe('local-file push queue', () => {
  it('journals a job before enqueue resolves, then hands it to the handler', async () => {
    const q = queue({ dir: join(dir, 'push') });
    const j = job('e1');
    await q.enqueue(j);
    expect((await journalLines()).join('\n')).toContain(j.jobId);
    const recorder = new Recorder();
    q.start(recorder.handler);
    await recorder.until((r) => r.calls.length === 1);
    expect(recorder.calls[0]?.job).toEqual(j);
  });

  it('delivers jobs pending at stop after a restart, and acknowledged jobs are not delivered again', async () => {
    const options = { dir: join(dir, 'push') };
    const first = queue(options);
    for (const id of ['e1', 'e2', 'e3']) await first.enqueue(job(id));
    await stop(first);

    const second = queue(options);
    const recorder = new Recorder();
    second.start(recorder.handler);
    await recorder.until((r) => r.calls.length === 3);
    expect(recorder.eventIds()).toEqual(['e1', 'e2', 'e3']);
    await stop(second);

    const third = queue(options);
    const later = new Recorder();
    third.start(later.handler);
    await third.enqueue(job('sentinel'));
    await later.until((r) => r.calls.length === 1);
    expect(later.eventIds()).toEqual(['sentinel']);
  });

  it('stop waits for the delivery in flight, and its retry survives the restart', async () => {
    const options = { dir: join(dir, 'push') };
    const first = queue(options);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const blocked = new Recorder(async () => {
      await gate;
      return { outcome: 'retry', error: 'HTTP 503', status: 503 };
    });
    first.start(blocked.handler);
    await first.enqueue(job('e1'));
    await blocked.until((r) => r.calls.length === 1);
    let stopped = false;
    const stopping = stop(first).then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;

    const second = queue(options);
    const recorder = new Recorder();
    second.start(recorder.handler);
    await recorder.until((r) => r.calls.length === 1);
    expect(recorder.calls[0]?.job).toMatchObject({ eventId: 'e1', attempt: 1, lastError: 'HTTP 503' });
  });

  it('retries with exponential backoff until delivered', async () => {
    const q = queue({ dir: join(dir, 'push') });
    const recorder = new Recorder((j) => (j.attempt < 2 ? { outcome: 'retry', error: 'HTTP 503' } : { outcome: 'delivered' }));
    q.start(recorder.handler);
    await q.enqueue(job('e1'));
    await recorder.until((r) => r.calls.length === 3);
    const [a, b, c] = recorder.calls.map((call) => call.at) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(18); // initial delay 20 ms (timer granularity aside)
    expect(c - b).toBeGreaterThanOrEqual(38); // then ×2
    expect(recorder.calls.map((call) => call.job.attempt)).toEqual([0, 1, 2]);
    expect(recorder.dead).toEqual([]);
  });

  it('dead-letters after the last attempt, and at once on a permanent failure', async () => {
    const recorder = new Recorder((j) =>
      j.eventId === 'gone' ? { outcome: 'permanent', status: 404, error: 'HTTP 404' } : { outcome: 'retry', error: 'HTTP 500' },
    );
    const q = queue({ dir: join(dir, 'push'), logger: recorder.logger });
    q.start(recorder.handler);
    await q.enqueue(job('flaky'));
    await q.enqueue(job('gone'));
    await recorder.until((r) => r.dead.length === 2);
    expect(recorder.eventIds().filter((id) => id === 'flaky')).toHaveLength(3);
    expect(recorder.eventIds().filter((id) => id === 'gone')).toHaveLength(1);
    await stop(q);

    const dead = (await readFile(join(dir, 'push', 'dead.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { job: PushJob; reason: string });
    expect(dead.map((entry) => [entry.job.eventId, entry.job.attempt])).toEqual(
      expect.arrayContaining([
        ['flaky', 3],
        ['gone', 1],
      ]),
    );
    expect(dead.find((entry) => entry.job.eventId === 'flaky')?.reason).toMatch(/gave up after 3 attempts: HTTP 500/);
    expect(liveEventIds(await journalLines())).toEqual([]);
  });

  it('compaction drops acknowledged records and keeps pending jobs', async () => {
    const options = { dir: join(dir, 'push'), compactMinLines: 10, retry: { ...fastRetry, initialDelayMs: 150, maxAttempts: 10 } };
    const q = queue(options);
    const recorder = new Recorder((j) => (j.eventId.startsWith('keep') ? { outcome: 'retry', error: 'HTTP 503' } : { outcome: 'delivered' }));
    q.start(recorder.handler);
    const ids = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? `keep-${i}` : `ack-${i}`));
    // A webhook each: a job retrying holds its own webhook's later jobs, not these.
    await Promise.all(ids.map((id) => q.enqueue({ ...job(id), configId: id })));
    await recorder.until((r) => new Set(r.eventIds()).size === 20);
    await stop(q);

    const lines = await journalLines();
    // 20 enqueues + 15 acks + 5 retries were written; compaction left roughly one line per live job.
    expect(lines.length).toBeLessThan(20);
    expect(liveEventIds(lines)).toEqual(ids.filter((id) => id.startsWith('keep')).sort());

    const restarted = queue(options);
    const after = new Recorder();
    restarted.start(after.handler);
    await after.until((r) => r.calls.length === 5);
    expect(after.eventIds().sort()).toEqual(ids.filter((id) => id.startsWith('keep')).sort());
  });

  it('survives a line torn by a crash mid-write', async () => {
    const options = { dir: join(dir, 'push') };
    const first = queue(options);
    await first.enqueue(job('e1'));
    await stop(first);
    await appendFile(join(dir, 'push', 'journal.jsonl'), '{"t":"enqueue","job":{"jobId":"tor');

    const second = queue(options);
    const recorder = new Recorder();
    second.start(recorder.handler);
    await second.enqueue(job('e2'));
    await recorder.until((r) => r.calls.length === 2);
    expect(recorder.eventIds()).toEqual(['e1', 'e2']);
  });

  describe('a journal damaged before its last line', () => {
    /** What the queue logs, as `[level, fields, message]`. */
    function logged() {
      const lines: Array<[string, object, string]> = [];
      const at = (level: string) => (fields: object, message: string) => void lines.push([level, fields, message]);
      return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
    }

    it('delivers the rest and warns once at start, naming the file and how many lines went, never what they held', async () => {
      const options = { dir: join(dir, 'push') };
      const first = queue(options);
      for (const eventId of ['e1', 'e2', 'e3']) await first.enqueue(job(eventId));
      await stop(first);
      const path = join(dir, 'push', 'journal.jsonl');
      const [one, two, three] = await journalLines();
      // A line cut short in the middle (it names a webhook with its token), a record missing its job, a torn end.
      const damaged = [
        one,
        two!.replace('hooks.example.com', 'hooks.example.com/secret-token').slice(0, -20),
        '{"t":"enqueue"}',
        three,
        '{"t":"ack","jobId":"e',
      ];
      await writeFile(path, damaged.join('\n'));

      const log = logged();
      const second = queue({ ...options, logger: log.logger });
      const recorder = new Recorder();
      second.start(recorder.handler);
      await recorder.until((r) => r.calls.length === 2);
      expect(recorder.eventIds()).toEqual(['e1', 'e3']);
      const warnings = log.lines.filter(([level]) => level === 'warn');
      expect(warnings).toEqual([['warn', { file: path, dropped: 2 }, expect.stringContaining('damaged lines')]]);
      expect(JSON.stringify(log.lines)).not.toContain('secret-token');
    });

    it('says nothing above debug of a torn last line alone', async () => {
      const options = { dir: join(dir, 'push') };
      const first = queue(options);
      await first.enqueue(job('e1'));
      await stop(first);
      await appendFile(join(dir, 'push', 'journal.jsonl'), '{"t":"enqueue","job":{"jobId":"tor');

      const log = logged();
      const second = queue({ ...options, logger: log.logger });
      const recorder = new Recorder();
      second.start(recorder.handler);
      await recorder.until((r) => r.calls.length === 1);
      expect(log.lines.filter(([level]) => level !== 'debug')).toEqual([]);
    });
  });
});

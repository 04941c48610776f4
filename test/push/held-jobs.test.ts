import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdWhileUnreachable } from '../../src/push/queue/held-jobs.js';
import { newPushJob, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { waitUntil } from '../support/wait-until.js';

/** A queue whose store can be made to refuse writes, as Redis does while it is gone. */
function switchableQueue() {
  const taken: PushJob[] = [];
  const state = { up: true, stopped: false, refusals: 0 };
  const queue: PushQueue = {
    async enqueue(job) {
      await Promise.resolve();
      if (!state.up) {
        state.refusals += 1;
        throw new Error('Connection is closed.');
      }
      taken.push(job);
    },
    start: () => undefined,
    stop: async () => void (state.stopped = true),
    depth: async () => {
      if (!state.up) throw new Error('Connection is closed.');
      return taken.length;
    },
  };
  return { queue, taken, state };
}

function recordingLogger() {
  const lines: Array<{ level: string; fields: object; message: string }> = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

const job = (n: number): PushJob =>
  newPushJob({ eventId: `e${n}`, taskId: 't', configId: 'c', owner: 'alice', url: 'http://receiver.test/', payload: `{"n":${n}}` });
const ids = (jobs: PushJob[]) => jobs.map((j) => j.eventId);

describe('holdWhileUnreachable', () => {
  it('passes jobs straight through while the store takes them', async () => {
    const { queue, taken } = switchableQueue();
    const held = holdWhileUnreachable(queue, recordingLogger());
    await held.enqueue(job(1));
    await held.enqueue(job(2));
    expect(ids(taken)).toEqual(['e1', 'e2']);
    expect(held.held()).toBe(0);
  });

  it('holds what the store refuses, keeps later jobs behind it, and queues all in order once the store is back', async () => {
    const { queue, taken, state } = switchableQueue();
    const { logger, lines } = recordingLogger();
    const held = holdWhileUnreachable(queue, { logger, retryMs: 5, maxRetryMs: 20 });
    await held.enqueue(job(1));
    state.up = false;
    await held.enqueue(job(2));
    await held.enqueue(job(3));
    expect(held.held()).toBe(2);
    expect(await held.depth!()).toBe(2);
    // It keeps trying while the store is gone, and holds on.
    await waitUntil(async () => state.refusals >= 3);
    await held.enqueue(job(4));
    expect(held.held()).toBe(3);

    state.up = true;
    await waitUntil(async () => held.held() === 0);
    expect(ids(taken)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(lines.map((line) => line.message)).toEqual([
      'A2A push queue out of reach: holding notifications in memory until it is back',
      'A2A push queue reachable again: every held notification is queued',
    ]);
    // And back to passing straight through.
    await held.enqueue(job(5));
    expect(ids(taken)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
  });

  it('refuses a job beyond maxHeld, so the caller can report it, and takes jobs again once the store is back', async () => {
    const { queue, taken, state } = switchableQueue();
    const held = holdWhileUnreachable(queue, { ...recordingLogger(), maxHeld: 2, retryMs: 5 });
    state.up = false;
    await held.enqueue(job(1));
    await held.enqueue(job(2));
    await expect(held.enqueue(job(3))).rejects.toThrow(/out of reach and 2 notifications are already held/);
    state.up = true;
    await waitUntil(async () => held.held() === 0);
    expect(ids(taken)).toEqual(['e1', 'e2']);
  });

  it('offers the held jobs at stop; what the store still refuses is logged as lost, with how many', async () => {
    const down = switchableQueue();
    const downLog = recordingLogger();
    const heldDown = holdWhileUnreachable(down.queue, { logger: downLog.logger, retryMs: 60_000 });
    down.state.up = false;
    await heldDown.enqueue(job(1));
    await heldDown.enqueue(job(2));
    await heldDown.stop();
    expect(down.state.stopped).toBe(true);
    expect(downLog.lines.at(-1)).toMatchObject({ level: 'error', fields: { lost: 2 } });

    const back = switchableQueue();
    const backLog = recordingLogger();
    const heldBack = holdWhileUnreachable(back.queue, { logger: backLog.logger, retryMs: 60_000 });
    back.state.up = false;
    await heldBack.enqueue(job(1));
    back.state.up = true;
    await heldBack.stop();
    expect(ids(back.taken)).toEqual(['e1']);
    expect(backLog.lines.filter((line) => line.level === 'error')).toEqual([]);
  });
});

describe('holdWhileUnreachable with a journal', () => {
  const dirs: string[] = [];
  const journalDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-held-'));
    dirs.push(dir);
    return join(dir, 'push-held');
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('has a held job on disk before enqueue returns; a process that ends without stop (a crash) loses nothing', async () => {
    const dir = journalDir();
    const crashed = switchableQueue();
    crashed.state.up = false;
    // Offered again only in a minute: this one never takes them, as a crashed process would not.
    const first = holdWhileUnreachable(crashed.queue, { ...recordingLogger(), journalDir: dir, retryMs: 60_000 });
    await first.enqueue(job(1));
    await first.enqueue(job(2));
    expect(first.held()).toBe(2);
    expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8')).toContain('"eventId":"e2"');

    const next = switchableQueue();
    const { logger, lines } = recordingLogger();
    const second = holdWhileUnreachable(next.queue, { logger, journalDir: dir, retryMs: 5 });
    await second.enqueue(job(3));
    await waitUntil(async () => second.held() === 0);
    // The older jobs first, the new one behind them.
    expect(ids(next.taken)).toEqual(['e1', 'e2', 'e3']);
    expect(lines[0]).toMatchObject({ level: 'warn', fields: { held: 2 } });
    expect(ids(crashed.taken)).toEqual([]);
    await second.stop();

    // Taken jobs leave the journal: a third start offers nothing.
    const last = switchableQueue();
    const third = holdWhileUnreachable(last.queue, { ...recordingLogger(), journalDir: dir, retryMs: 5 });
    await third.enqueue(job(4));
    expect(ids(last.taken)).toEqual(['e4']);
    await third.stop();
  });

  it('keeps what the store still refuses at stop journaled, and the next start queues it', async () => {
    const dir = journalDir();
    const down = switchableQueue();
    const downLog = recordingLogger();
    const stopped = holdWhileUnreachable(down.queue, { logger: downLog.logger, journalDir: dir, retryMs: 60_000 });
    down.state.up = false;
    await stopped.enqueue(job(1));
    await stopped.stop();
    expect(downLog.lines.at(-1)).toMatchObject({ level: 'warn', fields: { held: 1 } });
    expect(downLog.lines.filter((line) => line.level === 'error')).toEqual([]);

    const back = switchableQueue();
    const restarted = holdWhileUnreachable(back.queue, { ...recordingLogger(), journalDir: dir, retryMs: 5 });
    await waitUntil(async () => back.taken.length === 1);
    expect(ids(back.taken)).toEqual(['e1']);
    await restarted.stop();
  });
});

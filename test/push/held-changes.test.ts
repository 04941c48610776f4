/** Changes noticed while their configs cannot be read: held in order, bounded, journaled, and only for an outage. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdWhileUnanswered, noticedChange, type NoticedChange, type Unresolved } from '../../src/push/held-changes.js';
import { isOutOfReach } from '../../src/push/out-of-reach.js';
import { waitUntil } from '../support/wait-until.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function recordingLogger() {
  const lines: Array<{ level: string; message: string }> = [];
  const at = (level: string) => (_fields: object, message: string) => void lines.push({ level, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

const change = (n: number): NoticedChange =>
  noticedChange({
    taskId: 't',
    eventId: `t:e${n}`,
    stable: true,
    event: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
  });

/** A resolver whose stores answer only while `up`; what it resolved, in order. */
function switchable() {
  const resolved: string[] = [];
  const state = { up: true };
  const resolve = async (noticed: NoticedChange): Promise<Unresolved> => {
    await Promise.resolve();
    if (!state.up) return { rest: noticed, error: new Error('Connection is closed.') };
    resolved.push(noticed.eventId);
    return undefined;
  };
  return { resolve, resolved, state };
}

describe('holdWhileUnanswered', () => {
  it('holds what cannot be resolved, keeps later changes behind it, and resolves all in order once the stores answer', async () => {
    const { resolve, resolved, state } = switchable();
    const { logger, lines } = recordingLogger();
    const held = holdWhileUnanswered({ resolve, logger, retryMs: 5, maxRetryMs: 20 });
    await held.notify(change(1));
    state.up = false;
    await held.notify(change(2));
    state.up = true;
    // Resolvable now, but it would overtake change 2.
    await held.notify(change(3));
    expect(resolved).toEqual(['t:e1']);
    await waitUntil(async () => held.held() === 0);
    expect(resolved).toEqual(['t:e1', 't:e2', 't:e3']);
    expect(lines.map((line) => line.message)).toContain('A2A push config store answers again: every held change is queued');
    await held.stop();
  });

  it('holds at most maxHeld changes: one more is logged as not pushed', async () => {
    const { resolve, state } = switchable();
    const { logger, lines } = recordingLogger();
    state.up = false;
    const held = holdWhileUnanswered({ resolve, logger, maxHeld: 2, retryMs: 60_000 });
    for (const n of [1, 2, 3]) await held.notify(change(n));
    expect(held.held()).toBe(2);
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'A2A push: the config store is out of reach and too many changes are held already; this one is not pushed',
    ]);
    await held.stop();
  });

  it('journals held changes, keeps only the configs still due, and resolves them at the next start', async () => {
    const journalDir = mkdtempSync(join(tmpdir(), 'a2a-held-changes-'));
    dirs.push(journalDir);
    const seen: NoticedChange[] = [];
    // One of two configs is queued, the other's payload cannot be read: only that one is due after the restart.
    const partly = async (noticed: NoticedChange): Promise<Unresolved> => {
      seen.push(noticed);
      return { rest: { ...noticed, configs: [['bob', 'c2']] }, error: new Error('Connection is closed.') };
    };
    const first = holdWhileUnanswered({ resolve: partly, logger: recordingLogger().logger, retryMs: 60_000, journalDir });
    await first.notify(change(1));
    await first.stop();

    const { resolve, resolved } = switchable();
    const again: NoticedChange[] = [];
    const second = holdWhileUnanswered({
      resolve: (noticed) => (again.push(noticed), resolve(noticed)),
      logger: recordingLogger().logger,
      retryMs: 5,
      journalDir,
    });
    await waitUntil(async () => resolved.length === 1);
    expect(again[0]).toMatchObject({ eventId: 't:e1', jobId: seen[0]!.jobId, configs: [['bob', 'c2']] });
    await second.stop();
    const third = holdWhileUnanswered({ resolve, logger: recordingLogger().logger, retryMs: 5, journalDir });
    await new Promise((done) => setTimeout(done, 30));
    expect(resolved).toEqual(['t:e1']);
    await third.stop();
  });
});

describe('isOutOfReach', () => {
  const named = (name: string, message: string) => Object.assign(new Error(message), { name });
  it('tells a Redis that cannot answer from a read that will never succeed', () => {
    expect(isOutOfReach(named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 20).'))).toBe(true);
    expect(isOutOfReach(new Error('Connection is closed.'))).toBe(true);
    expect(isOutOfReach(new Error('Command timed out'))).toBe(true);
    expect(isOutOfReach(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isOutOfReach(named('ReplyError', 'LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(isOutOfReach(named('ReplyError', "READONLY You can't write against a read only replica."))).toBe(true);

    expect(isOutOfReach(named('ReplyError', 'WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isOutOfReach(new Error('Unsupported state or unable to authenticate data'))).toBe(false);
    expect(isOutOfReach(new SyntaxError('Unexpected token'))).toBe(false);
    expect(isOutOfReach('Connection is closed.')).toBe(false);
  });
});

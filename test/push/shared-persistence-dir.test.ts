/**
 * Two writers of one file in persistence-dir at once: two gateways given the same folder (a
 * misconfiguration the gateway survives), two stores on one folder in one process. Each change is still
 * answered as saved, and the file holds one whole version, never a mix and never a write that failed
 * because the other writer moved its temp file away.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileConfigStore } from '../../src/push/config-store/file.js';
import { Journal } from '../../src/push/queue/journal.js';
import { newPushJob, silentLogger } from '../../src/push/queue/types.js';
import { createKeyRing } from '../../src/push/secrets.js';

const keyRing = createKeyRing([`k:${randomBytes(32).toString('base64')}`]);
const url = 'https://hooks.example.com/a2a';
/** Rounds of changes made at once: one round rarely overlaps two fsyncs, twenty always did. */
const ROUNDS = 20;

let dir: string;
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const leftTemps = async (folder: string) => (await readdir(folder)).filter((name) => name.endsWith('.tmp'));

describe('one persistence-dir, two writers at once', () => {
  it('two config stores on one folder: every create is answered as saved, and push_configs.json is one whole snapshot', async () => {
    dir = await mkdtemp(join(tmpdir(), 'push-two-writers-'));
    const options = { keyRing, maxConfigsPerTask: 100, allowPrivate: false, logger: silentLogger, dir };
    const [first, second] = await Promise.all([createFileConfigStore(options), createFileConfigStore(options)]);
    for (let round = 0; round < ROUNDS; round++) {
      const made = await Promise.allSettled([
        first.create('alice', 'task-a', { id: `a${round}`, url }),
        second.create('bob', 'task-b', { id: `b${round}`, url }),
      ]);
      expect(made.map((result) => (result.status === 'rejected' ? String(result.reason) : 'saved'))).toEqual(['saved', 'saved']);
    }
    // Each folds what it holds into the snapshot as it closes.
    await Promise.all([first.close(), second.close()]);
    const snapshot = JSON.parse(await readFile(join(dir, 'push_configs.json'), 'utf8')) as Array<{ taskId: string }>;
    // Each store writes what it holds: the file is the last one's, whole.
    expect([['task-a'], ['task-b']]).toContainEqual([...new Set(snapshot.map((entry) => entry.taskId))]);
    expect(snapshot).toHaveLength(ROUNDS);
    expect(await leftTemps(dir)).toEqual([]);
  });

  it("two push journals on one folder compacting at once: both finish, and the journal's every line is a whole record", async () => {
    dir = await mkdtemp(join(tmpdir(), 'push-two-journals-'));
    const [{ journal: first }, { journal: second }] = await Promise.all([Journal.open(dir), Journal.open(dir)]);
    const job = (eventId: string) => newPushJob({ eventId, taskId: 't1', configId: 'c1', owner: '', url, payload: `{"e":"${eventId}"}` });
    for (let round = 0; round < ROUNDS; round++) {
      await first.append({ t: 'enqueue', job: job(`first-${round}`) });
      await second.append({ t: 'enqueue', job: job(`second-${round}`) });
      const compacted = await Promise.allSettled([first.compact(), second.compact()]);
      expect(compacted.map((result) => (result.status === 'rejected' ? String(result.reason) : 'done'))).toEqual(['done', 'done']);
    }
    await Promise.all([first.close(), second.close()]);
    const lines = (await readFile(join(dir, 'journal.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(await leftTemps(dir)).toEqual([]);
  });
});

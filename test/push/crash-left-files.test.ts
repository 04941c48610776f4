/**
 * What a start finds in persistence-dir after a crash, a full disk or a bad restore, for the two snapshot
 * files push cannot do without (push_configs.json, push_follows.json): a temp file left mid-write is
 * ignored (the previous snapshot stands) and removed once old (the queue's journal's and push_keys.json's
 * too), one damaged entry costs that entry only, and a damaged file stops the start with a line naming it
 * in full and what to do, rather than being read as empty and overwritten by the next change (every config
 * and follow lost for good, silently).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { defaultConfig } from '../../src/config/schema.js';
import { startFileProblems } from '../../src/start/checks.js';
import { createFileConfigStore } from '../../src/push/config-store/file.js';
import { createFileFollowJournal, type FollowEntry } from '../../src/push/follow-journal.js';
import { createKeyRing } from '../../src/push/secrets.js';
import { silentLogger } from '../../src/push/queue/types.js';
import { Journal } from '../../src/push/queue/journal.js';
import { tempDirs } from '../support/temp-dirs.js';
import { STALE_TEMP_MS } from '../../src/atomic-file.js';

const keyRing = createKeyRing([`k:${randomBytes(32).toString('base64')}`]);
const options = { keyRing, maxConfigsPerTask: 3, allowPrivate: false, logger: silentLogger };
const url = 'https://hooks.example.com/a2a-secret-path';

const stateDir = tempDirs('push-crash-left-');

/**
 * From now on push_configs.json and its journal push_configs.jsonl cannot be written, as on a full disk: a folder
 * stands in the place of each (the file moved aside), so an append fails as it opens the journal, and a compaction
 * at its end, once its temp file is written. Returns the undoing.
 */
async function diskFull(dir: string): Promise<() => Promise<void>> {
  const undo: Array<() => Promise<void>> = [];
  for (const name of ['push_configs.json', 'push_configs.jsonl']) {
    const [path, aside] = [join(dir, name), join(dir, `${name}.aside`)];
    const moved = await rename(path, aside).then(
      () => true,
      () => false,
    );
    await mkdir(path);
    undo.push(async () => {
      await rm(path, { recursive: true });
      if (moved) await rename(aside, path);
    });
  }
  return async () => void (await Promise.all(undo.map((step) => step())));
}

const leftTemps = async (dir: string) => (await readdir(dir)).filter((name) => name.endsWith('.tmp'));

const follow = (taskId: string): FollowEntry => ({ taskId, principal: 'alice', until: Date.now() + 60_000 });

/** Each way a file is left damaged: by a restore or copy cut short, a disk that failed, a hand edit. */
const damaged = (text: string): Array<[string, string]> => [
  ['empty', ''],
  ['cut short', text.slice(0, Math.floor(text.length / 2))],
  ['not a list', '{}'],
];

describe('push_configs.json', () => {
  it('a damaged file stops the start, naming the file in full and what to do, without its content', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url, token: 'notification-token' });
    await store.close();
    const path = join(dir, 'push_configs.json');
    const good = await readFile(path, 'utf8');
    for (const [how, text] of damaged(good)) {
      await writeFile(path, text);
      const refused = await createFileConfigStore({ ...options, dir }).catch((error: unknown) => error);
      expect(refused, how).toBeInstanceOf(ConfigError);
      expect((refused as Error).message, how).toMatch(`${path} (in persistence-dir) is damaged`);
      expect((refused as Error).message, how).toMatch(/move it aside to start without what it held/);
      expect((refused as Error).message, how).not.toMatch(/secret-path|hooks\.example/);
      // Refused, not overwritten: the operator can still restore it.
      expect(await readFile(path, 'utf8'), how).toBe(text);
    }
  });

  it('a temp file left by a crash mid-write is ignored: the configs of the last snapshot are there', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url });
    // Named as writeFileAtomic names its temp files: `<file>.<pid>.<random>.tmp`.
    await writeFile(join(dir, 'push_configs.json.4242.0a1b2c3d.tmp'), '[{"owner":"alice","taskId":"task-2","sea');
    const restarted = await createFileConfigStore({ ...options, dir });
    expect((await restarted.forTask('task-1')).map((entry) => entry.id)).toEqual(['a']);
    await restarted.create('alice', 'task-3', { id: 'c', url });
    const again = await createFileConfigStore({ ...options, dir });
    expect((await again.forTask('task-3')).map((entry) => entry.id)).toEqual(['c']);
  });

  it('a config the disk did not take (full) is not kept: the error the caller got stands, a replaced one is as before', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url });
    const unstick = await diskFull(dir);
    await expect(store.create('alice', 'task-1', { id: 'b', url })).rejects.toThrow();
    await expect(store.create('alice', 'task-1', { id: 'a', url: `${url}/replaced` })).rejects.toThrow();
    const shown = async (on = store) => (await on.forTask('task-1')).map((entry) => `${entry.id} ${entry.config.url}`);
    expect(await shown()).toEqual([`a ${url}`]);
    expect(await leftTemps(dir)).toEqual([]);
    await unstick();
    await store.create('alice', 'task-1', { id: 'c', url });
    expect(await shown(await createFileConfigStore({ ...options, dir }))).toEqual([`a ${url}`, `c ${url}`]);
    // The compaction the failures called for, done before the folder goes.
    await store.close();
  });

  it('a delete the disk did not take (full) is not done: the error the caller got stands, the config is there before and after a restart', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url, token: 'kept-token' });
    const unstick = await diskFull(dir);
    await expect(store.delete('alice', 'task-1', 'a')).rejects.toThrow();
    const shown = async (on = store) => (await on.forTask('task-1')).map((entry) => `${entry.id} ${entry.config.url} ${entry.config.token}`);
    expect(await shown()).toEqual([`a ${url} kept-token`]);
    expect(await leftTemps(dir)).toEqual([]);
    await unstick();
    expect(await shown(await createFileConfigStore({ ...options, dir }))).toEqual([`a ${url} kept-token`]);
    expect(await store.delete('alice', 'task-1', 'a')).toBeTruthy();
    expect(await shown(await createFileConfigStore({ ...options, dir }))).toEqual([]);
    await store.close();
  });

  it('a damaged entry is that config lost, not the others', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url });
    await store.create('bob', 'task-2', { id: 'b', url, token: 'sealed-token' });
    await store.close();
    const path = join(dir, 'push_configs.json');
    const entries = JSON.parse(await readFile(path, 'utf8')) as Array<Record<string, unknown>>;
    // Sealed under a key this start lacks (push_keys.json lost, push-keys changed).
    const elsewhere = await stateDir();
    const otherKey = createKeyRing([`gone:${randomBytes(32).toString('base64')}`]);
    const other = await createFileConfigStore({ ...options, keyRing: otherKey, dir: elsewhere });
    await other.create('carol', 'task-3', { id: 'c', url, token: 'x' });
    await other.close();
    const [lostKeyEntry] = JSON.parse(await readFile(join(elsewhere, 'push_configs.json'), 'utf8')) as unknown[];
    await writeFile(path, JSON.stringify([null, 7, { owner: 'x' }, lostKeyEntry, ...entries]));
    const restarted = await createFileConfigStore({ ...options, dir });
    expect((await restarted.forTask('task-1')).map((entry) => entry.id)).toEqual(['a']);
    expect((await restarted.forTask('task-2')).map((entry) => entry.config.token)).toEqual(['sealed-token']);
    expect(await restarted.forTask('task-3')).toEqual([]);
  });
});

/**
 * Temp files as writeFileAtomic names them, beside `file` in `dir`: one a crash left long ago, one a write under way
 * now (another gateway on the same persistence-dir may be writing it), and files that are none of the file's temps.
 * Returns the names that must stay.
 */
async function crashLeftTemps(dir: string, file: string): Promise<{ stale: string; staying: string[] }> {
  const stale = `${file}.4242.0a1b2c3d.tmp`;
  const staying = [`${file}.4243.0e0f1a2b.tmp`, `${file}.bak`, `other.json.4242.0a1b2c3d.tmp`, `${file}.4242.not-ours.tmp`];
  for (const name of [stale, ...staying]) await writeFile(join(dir, name), '[{"cut short');
  const longAgo = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
  for (const name of [stale, staying[2]!, staying[3]!]) await utimes(join(dir, name), longAgo, longAgo);
  return { stale, staying };
}

describe('temp files a crash left between a write and its move', () => {
  it('of push_configs.json are removed when the store opens, once old enough not to be a write under way', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url });
    const { stale, staying } = await crashLeftTemps(dir, 'push_configs.json');
    const restarted = await createFileConfigStore({ ...options, dir });
    // The store's writes wait for the sweep: once one is done, so is it.
    await restarted.create('alice', 'task-2', { id: 'b', url });
    const names = await readdir(dir);
    expect(names).not.toContain(stale);
    expect(names).toEqual(expect.arrayContaining(staying));
    expect((await restarted.forTask('task-1')).map((entry) => entry.id)).toEqual(['a']);
  });

  it('of push_keys.json are removed when the key ring opens it, the key file as it was', async () => {
    const dir = await stateDir();
    const path = join(dir, 'push_keys.json');
    const first = createKeyRing([], { generateIfEmpty: { persistPath: path } });
    const keyFile = await readFile(path, 'utf8');
    const { stale, staying } = await crashLeftTemps(dir, 'push_keys.json');
    const restarted = createKeyRing([], { generateIfEmpty: { persistPath: path } });
    // The ring is made synchronously; the sweep finishes after it.
    await expect.poll(() => readdir(dir)).not.toContain(stale);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(staying));
    expect(await readFile(path, 'utf8')).toBe(keyFile);
    expect(restarted.activeKeyId).toBe(first.activeKeyId);
  });

  it('of the push queue’s journal are removed when it opens', async () => {
    const dir = await stateDir();
    const { stale, staying } = await crashLeftTemps(dir, 'journal.jsonl');
    const { journal } = await Journal.open(dir, silentLogger);
    await journal.close();
    const names = await readdir(dir);
    expect(names).not.toContain(stale);
    expect(names).toEqual(expect.arrayContaining(staying));
  });
});

describe('push_follows.json', () => {
  it('a damaged file stops the start, naming the file in full', async () => {
    const dir = await stateDir();
    const journal = await createFileFollowJournal(dir, silentLogger);
    await journal.add(follow('task-1'));
    await journal.close();
    const path = join(dir, 'push_follows.json');
    const good = await readFile(path, 'utf8');
    for (const [how, text] of damaged(good)) {
      await writeFile(path, text);
      const refused = await createFileFollowJournal(dir, silentLogger).catch((error: unknown) => error);
      expect(refused, how).toBeInstanceOf(ConfigError);
      expect((refused as Error).message, how).toMatch(`${path} (in persistence-dir) is damaged`);
    }
  });

  it('a damaged entry is that follow lost, not the others', async () => {
    const dir = await stateDir();
    await writeFile(join(dir, 'push_follows.json'), JSON.stringify([null, { taskId: 'no-principal' }, follow('task-1'), 'x', follow('task-2')]));
    const journal = await createFileFollowJournal(dir, silentLogger);
    expect((await journal.entries()).map((entry) => entry.taskId)).toEqual(['task-1', 'task-2']);
  });
});

describe('check-config (and the start, before anything starts)', () => {
  it('tells a damaged push_configs.json or push_follows.json, as the start would stop for it', async () => {
    const dir = await stateDir();
    const config = defaultConfig({ 'push-notifications': true, 'persistence-dir': dir });
    expect(await startFileProblems(config)).toEqual([]);
    await writeFile(join(dir, 'push_follows.json'), '[{"taskId":"t');
    const problems = (await startFileProblems(config)) as Error[];
    expect(problems.map((problem) => problem.message)).toEqual([
      `${join(dir, 'push_follows.json')} (in persistence-dir) is damaged: not the JSON the gateway writes (cut short or overwritten); restore it from a backup, or move it aside to start without what it held`,
    ]);
    // With store: redis the configs and follows are in Redis: the files are not read.
    expect(await startFileProblems(defaultConfig({ 'push-notifications': true, 'persistence-dir': dir, store: 'redis' }))).toEqual([]);
  });
});

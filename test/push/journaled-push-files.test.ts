/**
 * push_configs.json and push_follows.json (store: memory) kept as a snapshot and a journal beside it
 * (push_configs.jsonl, push_follows.jsonl): a change appends its line and leaves the snapshot as it is (with
 * 100,000 tasks each holding a config, a rewrite per change cost megabytes and held the event loop), a restart reads
 * both, and closing folds the journal into a snapshot the release before reads whole, as it wrote it.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { createLogger } from '../../src/log.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import { createPushService } from '../../src/push/service.js';
import { createFileConfigStore, type FileConfigStore } from '../../src/push/config-store/file.js';
import { createMemoryConfigStore } from '../../src/push/config-store/memory.js';
import { createFileFollowJournal, type FollowEntry } from '../../src/push/follow-journal.js';
import { silentLogger } from '../../src/push/queue/types.js';
import { createKeyRing, openConfig, sealConfig, type SealedPushConfig } from '../../src/push/secrets.js';
import { readSnapshot } from '../../src/snapshot-file.js';
import { stubUpstream } from '../support/gateway-stubs.js';
import { keptFollows } from '../support/push-state-files.js';
import { tempDirs } from '../support/temp-dirs.js';

const keyRing = createKeyRing([`k:${randomBytes(32).toString('base64')}`]);
const options = { keyRing, maxConfigsPerTask: 10, allowPrivate: false, logger: silentLogger };
const url = 'https://hooks.example.com/a2a';

const stateDir = tempDirs('push-journaled-');

interface SavedConfig {
  owner: string;
  taskId: string;
  sealed: SealedPushConfig;
}
/** An entry of push_configs.json as the release before wrote it (and reads it): no key field. */
const saved = (owner: string, taskId: string, id: string, token: string): SavedConfig => ({
  owner,
  taskId,
  sealed: sealConfig(keyRing, { id, taskId, url, token }),
});
/** Several configs on one task, two owners, one id on two tasks: none may stand in for another. */
const oldConfigs = [
  saved('alice', 'task-1', 'a', 'alice-a'),
  saved('alice', 'task-1', 'b', 'alice-b'),
  saved('bob', 'task-1', 'a', 'bob-a'),
  saved('alice', 'task-2', 'a', 'alice-2a'),
];

/** What each store shows, per task: `owner id token`. */
const shown = async (store: FileConfigStore, taskIds: string[]) =>
  (await Promise.all(taskIds.map((taskId) => store.forTask(taskId))))
    .flat()
    .map((entry) => `${entry.owner} ${entry.taskId} ${entry.id} ${entry.config.token}`)
    .sort();

/** The release before's reader: push_configs.json alone, every entry opened into a store. */
async function readAsReleaseBefore(dir: string, ring = keyRing): Promise<string[]> {
  const memory = createMemoryConfigStore({ ...options, keyRing: ring });
  const entries = await readSnapshot<SavedConfig>(join(dir, 'push_configs.json'));
  for (const entry of entries) await memory.create(entry.owner, entry.taskId, openConfig(ring, entry.sealed));
  const configs = (await Promise.all([...new Set(entries.map((entry) => entry.taskId))].map((taskId) => memory.forTask(taskId)))).flat();
  return configs.map((entry) => `${entry.owner} ${entry.taskId} ${entry.id} ${entry.config.token}`).sort();
}

/** The snapshot file as it stands: its inode, its time and its bytes. */
const fileState = async (path: string) => {
  const { ino, mtimeMs } = await stat(path);
  return { ino, mtimeMs, text: await readFile(path, 'utf8') };
};
const journalLines = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter(Boolean);

describe('push_configs.json and its journal', () => {
  it('a release before’s snapshot is read whole, and a create, a delete and an eviction append lines, the snapshot untouched', async () => {
    const dir = await stateDir();
    const path = join(dir, 'push_configs.json');
    await writeFile(path, JSON.stringify(oldConfigs));
    const before = await fileState(path);
    const store = await createFileConfigStore({ ...options, dir });
    expect(await shown(store, ['task-1', 'task-2'])).toEqual([
      'alice task-1 a alice-a',
      'alice task-1 b alice-b',
      'alice task-2 a alice-2a',
      'bob task-1 a bob-a',
    ]);

    await store.create('carol', 'task-3', { id: 'c', url, token: 'carol-c' });
    await store.delete('alice', 'task-1', 'b');
    await store.deleteTask('task-2');
    expect(await fileState(path)).toEqual(before);
    // The header (the snapshot the lines follow), the create, the delete, the eviction's one config.
    expect(await journalLines(join(dir, 'push_configs.jsonl'))).toHaveLength(4);

    const restarted = await createFileConfigStore({ ...options, dir });
    const now = ['alice task-1 a alice-a', 'bob task-1 a bob-a', 'carol task-3 c carol-c'];
    expect(await shown(restarted, ['task-1', 'task-2', 'task-3'])).toEqual(now);
    // Closed, the journal is folded into a snapshot the release before reads whole.
    await store.close();
    expect(await readAsReleaseBefore(dir)).toEqual(now);
    expect(await journalLines(join(dir, 'push_configs.jsonl'))).toHaveLength(1);
  });

  it('a last line a crash cut short is not read; the changes before it and after the restart are', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url, token: 'kept' });
    const journal = join(dir, 'push_configs.jsonl');
    await appendFile(journal, JSON.stringify(saved('alice', 'task-1', 'torn', 'never-acknowledged')).slice(0, 80));
    const restarted = await createFileConfigStore({ ...options, dir });
    expect(await shown(restarted, ['task-1'])).toEqual(['alice task-1 a kept']);
    await restarted.create('alice', 'task-1', { id: 'b', url, token: 'after' });
    expect(await shown(await createFileConfigStore({ ...options, dir }), ['task-1'])).toEqual(['alice task-1 a kept', 'alice task-1 b after']);
    await restarted.close();
    expect(await readAsReleaseBefore(dir)).toEqual(['alice task-1 a kept', 'alice task-1 b after']);
  });

  it('a create whose line cannot be written (the journal cannot be opened) is undone, and the caller gets the error', async () => {
    const dir = await stateDir();
    const store = await createFileConfigStore({ ...options, dir });
    await store.create('alice', 'task-1', { id: 'a', url, token: 'first' });
    await store.close();
    const journal = join(dir, 'push_configs.jsonl');
    await rm(journal);
    // A folder where the journal goes: opening it to append fails, as a failing disk would.
    await mkdir(journal);
    await expect(store.create('alice', 'task-1', { id: 'b', url })).rejects.toThrow(/EISDIR/);
    await expect(store.create('alice', 'task-1', { id: 'a', url, token: 'replacing' })).rejects.toThrow(/EISDIR/);
    expect(await shown(store, ['task-1'])).toEqual(['alice task-1 a first']);
    // Started again meanwhile, the gateway refuses rather than start the journal anew; once the disk is mended, it reads the config kept.
    await expect(createFileConfigStore({ ...options, dir })).rejects.toThrow(`${journal} (in persistence-dir) cannot be read (EISDIR`);
    await rm(journal, { recursive: true });
    expect(await shown(await createFileConfigStore({ ...options, dir }), ['task-1'])).toEqual(['alice task-1 a first']);
  });
});

const follow = (taskId: string, principal = 'alice', until = Date.now() + 60_000): FollowEntry => ({ taskId, principal, until });

describe('push_follows.json and its journal', () => {
  it('a release before’s snapshot is read whole; a follow begun or ended appends a line, the snapshot untouched; closing folds them in', async () => {
    const dir = await stateDir();
    const path = join(dir, 'push_follows.json');
    await writeFile(path, JSON.stringify([follow('task-1'), follow('task-2', 'bob'), follow('task-3')]));
    const before = await fileState(path);
    const journal = await createFileFollowJournal(dir, silentLogger);
    expect((await journal.entries()).map((entry) => `${entry.taskId} ${entry.principal}`)).toEqual(['task-1 alice', 'task-2 bob', 'task-3 alice']);

    await journal.add(follow('task-4'));
    await journal.remove('task-2');
    await journal.add(follow('task-1', 'carol'));
    expect(await fileState(path)).toEqual(before);
    expect(await journalLines(join(dir, 'push_follows.jsonl'))).toHaveLength(4);

    const now = ['task-3 alice', 'task-4 alice', 'task-1 carol'];
    const restarted = await createFileFollowJournal(dir, silentLogger);
    expect((await restarted.entries()).map((entry) => `${entry.taskId} ${entry.principal}`)).toEqual(now);
    await journal.close();
    // The release before's reader: push_follows.json alone.
    expect((await readSnapshot<FollowEntry>(path)).map((entry) => `${entry.taskId} ${entry.principal}`)).toEqual(now);
  });

  it('a last line a crash cut short is not read', async () => {
    const dir = await stateDir();
    const journal = await createFileFollowJournal(dir, silentLogger);
    await journal.add(follow('task-1'));
    await appendFile(join(dir, 'push_follows.jsonl'), JSON.stringify(follow('task-torn')).slice(0, 20));
    const restarted = await createFileFollowJournal(dir, silentLogger);
    expect((await restarted.entries()).map((entry) => entry.taskId)).toEqual(['task-1']);
    await restarted.add(follow('task-2'));
    expect((await (await createFileFollowJournal(dir, silentLogger)).entries()).map((entry) => entry.taskId)).toEqual(['task-1', 'task-2']);
  });
});

describe('push stopping (service.ts)', () => {
  it('folds both journals into the snapshots the release before reads', async () => {
    const dir = await stateDir();
    // A follow left from before whose time is over: push's start ends it, a line in the journal.
    await writeFile(join(dir, 'push_follows.json'), JSON.stringify([follow('task-over', 'alice', Date.now() - 1)]));
    const registry = createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 60_000, historyLimit: 10 });
    const config = defaultConfig({ 'push-notifications': true, 'persistence-dir': dir });
    const service = await createPushService(config, { registry, logger: createLogger('silent'), profile: loadMappingProfile('a2a-0.2.5') });
    try {
      const port = service.decorate(Object.assign(stubUpstream({}), { settled: async () => undefined }));
      service.start();
      await vi.waitFor(async () => expect(await keptFollows(dir)).toEqual([]));
      const alice = { principal: 'alice', signal: new AbortController().signal, surface: 'jsonrpc' as const };
      await registry.put({ id: 'task-1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } }, { owner: 'alice', upstream: 'up' });
      await port.createTaskPushNotificationConfig({ taskId: 'task-1', id: 'hook', url, token: 'stopped' }, alice);
    } finally {
      await service.stop();
      await registry.close();
    }
    const generated = createKeyRing([], { generateIfEmpty: { persistPath: join(dir, 'push_keys.json') } });
    expect(await readAsReleaseBefore(dir, generated)).toEqual(['alice task-1 hook stopped']);
    expect(await readSnapshot(join(dir, 'push_follows.json'))).toEqual([]);
  });
});

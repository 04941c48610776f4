import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { journaledEntries } from '../../journaled-file.js';
import { silentLogger, type PushLogger } from '../queue/types.js';
import { openConfig, sealConfig, type KeyRing, type SealedPushConfig } from '../secrets.js';
import { createMemoryConfigStore } from './memory.js';
import type { ConfigStoreOptions, PushConfigStore } from './types.js';

export interface FileConfigStoreOptions extends ConfigStoreOptions {
  keyRing: KeyRing;
  /** `<persistence-dir>`: configs are kept in `push_configs.json` and its journal `push_configs.jsonl` there. */
  dir: string;
  logger?: PushLogger;
}

/** The file store: `close()` folds the journal into `push_configs.json` (the release before reads only that). */
export interface FileConfigStore extends PushConfigStore {
  close(): Promise<void>;
}

interface SavedConfig {
  owner: string;
  taskId: string;
  sealed: SealedPushConfig;
}

export const CONFIGS_FILE = 'push_configs.json';
export const CONFIGS_JOURNAL = 'push_configs.jsonl';

/** One config's key: its owner, task and id (the id in clear in the sealed config; a damaged entry throws). */
const keyOf = (owner: string, taskId: string, id: string): string => JSON.stringify([owner, taskId, id]);
const savedKey = (entry: SavedConfig): string => keyOf(entry.owner, entry.taskId, entry.sealed.config.id!);

/**
 * The single-node store (`store: memory`) made durable: the memory store serves every call, and each change
 * appends its sealed config's line (secrets encrypted, like iac-code's push_configs files) to a journal beside a
 * snapshot of them all (journaled-file.ts: a change costs its line, not a rewrite of every config the tasks hold).
 * Without it a restart would forget every config, and the jobs the local-file queue kept would be dropped for
 * want of one.
 */
export async function createFileConfigStore(options: FileConfigStoreOptions): Promise<FileConfigStore> {
  const logger = options.logger ?? silentLogger;
  const memory = createMemoryConfigStore(options);
  /** The sealed entries by `keyOf`, as the journal's compaction writes them; and each task's keys, for its eviction. */
  const saved = new Map<string, SavedConfig>();
  const byTask = new Map<string, Set<string>>();
  function remember(key: string, entry: SavedConfig): void {
    saved.delete(key);
    saved.set(key, entry);
    let keys = byTask.get(entry.taskId);
    if (!keys) byTask.set(entry.taskId, (keys = new Set<string>()));
    keys.add(key);
  }
  function drop(key: string, taskId: string): void {
    saved.delete(key);
    const keys = byTask.get(taskId);
    if (keys?.delete(key) && keys.size === 0) byTask.delete(taskId);
  }

  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const file = journaledEntries<SavedConfig>({
    snapshotPath: join(options.dir, CONFIGS_FILE),
    journalPath: join(options.dir, CONFIGS_JOURNAL),
    live: saved,
    // A snapshot the release before wrote holds no key field: each entry is keyed by its owner, task and id.
    keyOf: savedKey,
    rejects: true,
    onError: (error: unknown) => logger.error({ err: error }, 'A2A push configs could not be read or saved'),
  });
  for (const entry of await file.load()) {
    try {
      const stored = await memory.create(entry.owner, entry.taskId, openConfig(options.keyRing, entry.sealed));
      remember(keyOf(entry.owner, entry.taskId, stored.id), entry);
    } catch (error) {
      // A key no longer configured, a URL the current policy refuses, a damaged entry: that config is gone, not the others.
      logger.warn({ err: error, taskId: (entry as Partial<SavedConfig> | null)?.taskId }, 'A2A push config could not be restored');
    }
  }

  /**
   * Undoes a change whose line failed (the caller's error is the whole story), in memory and in the journal too:
   * the line may be on disk all the same (written, its fsync failed), and a compaction since may hold the change.
   */
  async function undo(owner: string, taskId: string, id: string, before: SavedConfig | undefined): Promise<void> {
    const key = keyOf(owner, taskId, id);
    if (before) {
      remember(key, before);
      await memory.create(owner, taskId, openConfig(options.keyRing, before.sealed));
    } else {
      drop(key, taskId);
      await memory.delete(owner, taskId, id);
    }
    await (before ? file.set(before) : file.forget(key)).catch(() => undefined);
  }

  return {
    async create(owner, taskId, input) {
      const stored = await memory.create(owner, taskId, input);
      const key = keyOf(owner, taskId, stored.id);
      const replaced = saved.get(key);
      const entry: SavedConfig = { owner, taskId, sealed: sealConfig(options.keyRing, stored.config) };
      remember(key, entry);
      try {
        await file.set(entry);
      } catch (error) {
        // Not on disk (a full disk): undone, so that it is not delivered to all the same and lost at the next restart.
        await undo(owner, taskId, stored.id, replaced);
        throw error;
      }
      return stored;
    },
    get: (owner, taskId, id) => memory.get(owner, taskId, id),
    list: (owner, taskId, listOptions) => memory.list(owner, taskId, listOptions),
    async delete(owner, taskId, id) {
      const key = keyOf(owner, taskId, id);
      const entry = saved.get(key);
      const removed = await memory.delete(owner, taskId, id);
      if (!entry) return removed;
      drop(key, taskId);
      try {
        await file.forget(key);
      } catch (error) {
        // Still on disk (a full disk): kept, so that it is not gone now and delivered to again after the next restart.
        await undo(owner, taskId, id, entry);
        throw error;
      }
      return removed;
    },
    forTask: (taskId) => memory.forTask(taskId),
    async deleteTask(taskId) {
      await memory.deleteTask(taskId);
      const keys = byTask.get(taskId);
      if (!keys) return;
      byTask.delete(taskId);
      // A line per config: an eviction does not rewrite the configs of every other task.
      for (const key of keys) saved.delete(key);
      await Promise.all([...keys].map((key) => file.forget(key)));
    },
    close: () => file.compact(),
  };
}

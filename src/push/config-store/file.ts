import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger, type PushLogger } from '../queue/types.js';
import { readSnapshot, snapshotFile } from '../../snapshot-file.js';
import { openConfig, sealConfig, type KeyRing, type SealedPushConfig } from '../secrets.js';
import { createMemoryConfigStore } from './memory.js';
import type { ConfigStoreOptions, PushConfigStore } from './types.js';

export interface FileConfigStoreOptions extends ConfigStoreOptions {
  keyRing: KeyRing;
  /** `<persistence-dir>`: configs are kept in `push_configs.json` there. */
  dir: string;
  logger?: PushLogger;
}

interface SavedConfig {
  owner: string;
  taskId: string;
  sealed: SealedPushConfig;
}

export const CONFIGS_FILE = 'push_configs.json';

/**
 * The single-node store (`store: memory`) made durable: the memory store serves every call, and
 * each change rewrites a snapshot of the sealed configs (secrets encrypted, like iac-code's
 * push_configs files). Without it a restart would forget every config, and the jobs the local-file
 * queue kept would be dropped for want of one (snapshot-file.ts: coalesced, atomic writes).
 */
export async function createFileConfigStore(options: FileConfigStoreOptions): Promise<PushConfigStore> {
  const logger = options.logger ?? silentLogger;
  const memory = createMemoryConfigStore(options);
  /** taskId → `[owner, id]` → sealed entry: dropping an evicted task's configs touches only that task. */
  const saved = new Map<string, Map<string, SavedConfig>>();
  const keyOf = (owner: string, id: string) => JSON.stringify([owner, id]);
  function remember(entry: SavedConfig, id: string): void {
    let configs = saved.get(entry.taskId);
    if (!configs) saved.set(entry.taskId, (configs = new Map<string, SavedConfig>()));
    configs.set(keyOf(entry.owner, id), entry);
  }
  /** Whether the entry was there to drop. */
  function forget(taskId: string, key: string): boolean {
    const configs = saved.get(taskId);
    if (!configs?.delete(key)) return false;
    if (configs.size === 0) saved.delete(taskId);
    return true;
  }
  const path = join(options.dir, CONFIGS_FILE);

  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  for (const entry of await readSnapshot<SavedConfig>(path)) {
    try {
      const stored = await memory.create(entry.owner, entry.taskId, openConfig(options.keyRing, entry.sealed));
      remember(entry, stored.id);
    } catch (error) {
      // A key no longer configured, a URL the current policy refuses, a damaged entry: that config is gone, not the others.
      logger.warn({ err: error, taskId: (entry as Partial<SavedConfig> | null)?.taskId }, 'A2A push config could not be restored');
    }
  }

  const { persist } = snapshotFile(
    path,
    () => [...saved.values()].flatMap((configs) => [...configs.values()]),
    (error: unknown) => logger.error({ err: error }, 'A2A push configs could not be saved'),
  );

  return {
    async create(owner, taskId, input) {
      const stored = await memory.create(owner, taskId, input);
      const replaced = saved.get(taskId)?.get(keyOf(owner, stored.id));
      remember({ owner, taskId, sealed: sealConfig(options.keyRing, stored.config) }, stored.id);
      try {
        await persist();
      } catch (error) {
        // Not on disk (a full disk): undone, so the caller's error is the whole story, not a config that is
        // delivered to all the same and lost at the next restart.
        if (replaced) {
          await memory.create(owner, taskId, openConfig(options.keyRing, replaced.sealed));
          remember(replaced, stored.id);
        } else {
          await memory.delete(owner, taskId, stored.id);
          forget(taskId, keyOf(owner, stored.id));
        }
        throw error;
      }
      return stored;
    },
    get: (owner, taskId, id) => memory.get(owner, taskId, id),
    list: (owner, taskId, listOptions) => memory.list(owner, taskId, listOptions),
    async delete(owner, taskId, id) {
      const key = keyOf(owner, id);
      const entry = saved.get(taskId)?.get(key);
      const removed = await memory.delete(owner, taskId, id);
      if (!entry || !forget(taskId, key)) return removed;
      try {
        await persist();
      } catch (error) {
        // Still on disk (a full disk): kept, so the caller's error is the whole story, not a config that is gone
        // now and delivered to again after the next restart.
        await memory.create(owner, taskId, openConfig(options.keyRing, entry.sealed));
        remember(entry, id);
        throw error;
      }
      return removed;
    },
    forTask: (taskId) => memory.forTask(taskId),
    async deleteTask(taskId) {
      await memory.deleteTask(taskId);
      if (saved.delete(taskId)) await persist();
    },
  };
}

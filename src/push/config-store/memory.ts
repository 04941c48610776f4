import type { KeyRing } from '../secrets.js';
import { openRecord, sealRecord, type ConfigRecord } from './record.js';
import { byId, pageOf, prepareConfig, tooManyConfigs, type ConfigStoreOptions, type PushConfigStore, type StoredConfig } from './types.js';

export interface MemoryConfigStoreOptions extends ConfigStoreOptions {
  keyRing: KeyRing;
}

/** Single-process config store; secrets are sealed even in memory, so a heap dump holds no tokens. */
export function createMemoryConfigStore(options: MemoryConfigStoreOptions): PushConfigStore {
  /** taskId → `${owner}\n${id}` → record. Ids cannot contain a newline, so the key is unambiguous. */
  const tasks = new Map<string, Map<string, ConfigRecord>>();
  const keyOf = (owner: string, id: string) => `${owner}\n${id}`;
  const open = (record: ConfigRecord) => openRecord(options.keyRing, record);

  return {
    async create(owner, taskId, input) {
      const config = prepareConfig(taskId, input, options);
      const configs = tasks.get(taskId) ?? new Map<string, ConfigRecord>();
      const key = keyOf(owner, config.id);
      if (!configs.has(key) && configs.size >= options.maxConfigsPerTask) throw tooManyConfigs(options.maxConfigsPerTask);
      const record = sealRecord(options.keyRing, owner, config, Date.now());
      configs.set(key, record);
      tasks.set(taskId, configs);
      return open(record);
    },
    async get(owner, taskId, id) {
      const record = tasks.get(taskId)?.get(keyOf(owner, id));
      return record ? open(record) : undefined;
    },
    async list(owner, taskId, listOptions) {
      const owned: StoredConfig[] = [];
      for (const record of tasks.get(taskId)?.values() ?? []) {
        if (record.owner === owner) owned.push(open(record));
      }
      return pageOf(owned.sort(byId), listOptions);
    },
    async delete(owner, taskId, id) {
      const configs = tasks.get(taskId);
      const removed = configs?.delete(keyOf(owner, id)) ?? false;
      if (configs?.size === 0) tasks.delete(taskId);
      return removed;
    },
    async forTask(taskId) {
      return [...(tasks.get(taskId)?.values() ?? [])].map(open).sort(byId);
    },
    async deleteTask(taskId) {
      tasks.delete(taskId);
    },
  };
}

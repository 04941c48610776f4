import { openConfig, sealConfig, type KeyRing, type SealedPushConfig } from '../secrets.js';
import type { StoredConfig } from './types.js';

/** A config as it sits in a store: secrets sealed, owner and creation time alongside. */
export interface ConfigRecord {
  owner: string;
  createdAt: number;
  sealed: SealedPushConfig;
}

export function sealRecord(keyRing: KeyRing, owner: string, config: StoredConfig['config'], createdAt: number): ConfigRecord {
  return { owner, createdAt, sealed: sealConfig(keyRing, config) };
}

export function openRecord(keyRing: KeyRing, record: ConfigRecord): StoredConfig {
  const config = openConfig(keyRing, record.sealed) as StoredConfig['config'];
  return { owner: record.owner, taskId: config.taskId, id: config.id, config, createdAt: record.createdAt };
}

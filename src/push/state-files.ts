import { join } from 'node:path';
import type { GatewayConfig } from '../config/schema.js';
import { readSnapshot } from '../snapshot-file.js';
import { CONFIGS_FILE } from './config-store/file.js';
import { FOLLOWS_FILE } from './follow-journal.js';

/** The snapshot files one replica keeps push's configs and follows in (with `store: redis` they are in Redis). */
const pushStateFiles = (config: GatewayConfig): string[] =>
  config.store === 'redis' ? [] : [CONFIGS_FILE, FOLLOWS_FILE].map((name) => join(config['persistence-dir'], name));

/**
 * What the start would refuse in those files (one damaged: readSnapshot's ConfigError naming it), found by
 * reading them, creating nothing: told once, by the start's checks, before anything starts, and by check-config.
 */
export async function checkPushStateFiles(config: GatewayConfig): Promise<void> {
  for (const path of pushStateFiles(config)) await readSnapshot(path);
}

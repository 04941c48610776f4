import { join } from 'node:path';
import type { GatewayConfig } from '../config/schema.js';
import { checkKeyRing } from './secrets.js';

/** The generated key ring's file, used while `push-keys` is empty (createPushKeyRing in index.ts). */
export const pushKeyFile = (config: GatewayConfig): string => join(config['persistence-dir'], 'push_keys.json');

/** What createPushKeyRing would refuse at start, found without creating anything (check-config); nothing without push. */
export function checkPushKeyRing(config: GatewayConfig): void {
  if (config['push-notifications']) checkKeyRing(config['push-keys'], pushKeyFile(config));
}

import type { GatewayConfig } from '../config/schema.js';

/**
 * Without `push-keys` each replica seals push secrets with its own generated key file, so one replica cannot open
 * the configs another stored in the shared Redis. A single replica is fine, so this is said, not refused; one
 * function, so `serve` (at start) and `check-config` say the same. Undefined when there is nothing to say.
 */
export function pushKeysWarning(config: GatewayConfig): string | undefined {
  if (!config['push-notifications'] || config.store !== 'redis' || config['push-keys'].length > 0) return undefined;
  return 'push-keys is empty with store: redis; configure shared push-keys when running several replicas';
}

import type { GatewayConfig } from '../config/schema.js';
import { facadeKeyWarning, openSurfaceWarning } from './facade-key-warning.js';
import { metricsTokenWarning } from './metrics-token-warning.js';
import { pushKeysWarning } from './push-keys-warning.js';
import { weakSecretWarnings } from './weak-secret-warnings.js';

/**
 * What a configuration is warned of at start, read from it alone: serve logs them, `check-config` prints them
 * before serve would (with the embedded demo's warning, which serve logs where it starts the demo).
 */
export function configWarnings(config: GatewayConfig): string[] {
  const warnings = [
    facadeKeyWarning(config),
    openSurfaceWarning(config),
    metricsTokenWarning(config),
    pushKeysWarning(config),
    ...weakSecretWarnings(config),
  ];
  return warnings.filter((warning) => warning !== undefined);
}

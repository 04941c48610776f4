import { callerAuthConfigured } from './config/credentials-schema.js';
import type { GatewayConfig } from './config/schema.js';
import { facadeKeys } from './surfaces/v025/auth.js';

/**
 * The gateway's own callers must authenticate while Bailian's facade takes anyone: the facade is then a
 * way around the gateway's auth. One function, so `serve` (at start) and `check-config` (before it) say
 * the same. Undefined when there is nothing to say.
 */
export function facadeKeyWarning(config: GatewayConfig): string | undefined {
  if (!config.bailian.enabled || !callerAuthConfigured(config.auth) || facadeKeys(config.bailian).length > 0) return undefined;
  return 'gateway auth is set but bailian.api-key(s) are not: the 0.2.5 facade accepts calls without a key';
}

import { callerAuthConfigured } from '../config/credentials-schema.js';
import type { GatewayConfig } from '../config/schema.js';
import { exposedBecause } from './exposed-because.js';
import { facadeKeys } from '../surfaces/v025/auth.js';
import { isWildcardHost } from '../wildcard-host.js';

/**
 * The gateway's own callers must authenticate while Bailian's facade takes anyone: the facade is then a
 * way around the gateway's auth. One function, so `serve` (at start) and `check-config` (before it) say
 * the same. Undefined when there is nothing to say.
 */
export function facadeKeyWarning(config: GatewayConfig): string | undefined {
  if (!config.bailian.enabled || !callerAuthConfigured(config.auth) || facadeKeys(config.bailian).length > 0) return undefined;
  return 'gateway auth is set but bailian.api-key(s) are not: the 0.2.5 facade accepts calls without a key';
}

/**
 * The converse: Bailian's calls need a key while the 1.0 surface, on the same address, takes anyone, which
 * an operator who followed the Bailian steps alone does not expect. Said only where others reach the
 * gateway; on a wildcard bind the warning of a bind without auth says it already (config/load.ts).
 */
export function openSurfaceWarning(config: GatewayConfig): string | undefined {
  if (!config.bailian.enabled || facadeKeys(config.bailian).length === 0 || callerAuthConfigured(config.auth)) return undefined;
  const because = exposedBecause(config);
  if (!because || isWildcardHost(config.host)) return undefined;
  return `bailian.api-key is set but gateway auth is not, though others reach this gateway (${because}): its A2A 1.0 surface (JSON-RPC, HTTP+JSON, gRPC if enabled, the iac-code routes) accepts calls without credentials (set auth.token, auth.api-key, auth.basic-*, the lists auth.tokens, auth.api-keys, auth.jwt or auth.introspection)`;
}

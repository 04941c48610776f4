import type { GatewayConfig } from '../config/schema.js';
import { isWildcardHost } from '../wildcard-host.js';

const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * What in the config says callers other than its operator reach the gateway: it binds more than loopback, or a
 * proxy publishes it (public-url). Undefined for a gateway only its own machine can call.
 */
export function exposedBecause(config: GatewayConfig): string | undefined {
  if (isWildcardHost(config.host) || !LOOPBACK_HOST.test(config.host)) return `it binds ${config.host || 'every interface'}`;
  if (config['public-url']) return 'public-url is set';
  return undefined;
}

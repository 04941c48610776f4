import { callerAuthConfigured } from '../config/credentials-schema.js';
import type { GatewayConfig } from '../config/schema.js';
import { facadeKeys } from '../surfaces/v025/auth.js';

/**
 * With gateway auth or the facade's keys set, an open metrics route is the one thing anyone may read that tells the gateway's
 * callers apart: it names every credential's client and what each asks. Open is the documented default
 * (`metrics.token` absent), so this is said, not refused; one function, so `serve` (at start) and
 * `check-config` say the same. Undefined when there is nothing to say.
 */
export function metricsTokenWarning(config: GatewayConfig): string | undefined {
  const { metrics } = config;
  const callersKnown = callerAuthConfigured(config.auth) || (config.bailian.enabled && facadeKeys(config.bailian).length > 0);
  if (!metrics.enabled || metrics.token !== undefined || !callersKnown) return undefined;
  const where = metrics.port === undefined ? metrics.path : `${metrics.path} on metrics.port ${metrics.port}`;
  return `caller credentials are set but metrics.token is not: ${where} is open to anyone and names every client and its calls`;
}

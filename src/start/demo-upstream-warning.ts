import { callerAuthConfigured } from '../config/credentials-schema.js';
import type { GatewayConfig } from '../config/schema.js';
import { exposedBecause } from './exposed-because.js';
import { facadeKeys } from '../surfaces/v025/auth.js';

/** What in the config says the gateway is meant for callers other than its operator; undefined for a local trial. */
function deployedBecause(config: GatewayConfig): string | undefined {
  const exposed = exposedBecause(config);
  if (exposed) return exposed;
  if (callerAuthConfigured(config.auth)) return 'auth is set';
  if (config.bailian.enabled && facadeKeys(config.bailian).length > 0) return 'bailian.api-key is set';
  return undefined;
}

/**
 * Without `upstream.url` the gateway serves its embedded demo agent, which only echoes: right for a trial
 * on the operator's machine, and a silent outage (ready, answering echoes to every caller) when a
 * deployed gateway lost its upstream setting. Undefined when there is nothing to warn of (an upstream is
 * set, or nothing says the gateway is deployed). One function, so `serve` and `check-config` say the same.
 */
export function demoUpstreamWarning(config: GatewayConfig): string | undefined {
  if (config.upstream.url) return undefined;
  const because = deployedBecause(config);
  if (!because) return undefined;
  return `upstream.url is not set, so callers get the embedded demo agent's echoes, though this gateway looks deployed (${because}): set upstream.url (--upstream, A2A_BRIDGE_UPSTREAM__URL) to the agent to bridge to`;
}

import { withFields, type AgentInterface } from '../model/index.js';
import { isRecord } from '../model/json.js';

/**
 * The tenant an agent's interface asks every call to carry (A2A 1.0 `AgentInterface.tenant`), or
 * undefined for none ('' is the default tenant).
 */
export function interfaceTenant(entry: Pick<AgentInterface, 'tenant'> | undefined): string | undefined {
  return entry?.tenant ? entry.tenant : undefined;
}

/**
 * The call's params with the upstream interface's tenant. The gateway serves its own interfaces
 * without one, so a caller cannot know it; and the caller's own `tenant` is replaced, not kept: the
 * gateway fronts that one tenant, and its credentials must not reach another tenant of the agent.
 * Without an interface tenant the params go as they are (a caller's tenant included).
 */
export function withInterfaceTenant(params: unknown, tenant: string | undefined): unknown {
  if (tenant === undefined) return params;
  return isRecord(params) ? withFields(params, { tenant }) : params;
}

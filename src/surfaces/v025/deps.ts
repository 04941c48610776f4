import type { GatewayConfig } from '../../config/schema.js';
import type { AgentPort } from '../../core/agent-port.js';
import type { CardSource } from '../../core/card-source.js';
import type { TaskRegistry } from '../../core/task-registry/types.js';
import type { MappingProfile } from '../../mappings/index.js';
import { publicBaseUrl } from '../shared/public-url.js';

/** What the 0.2.5 facade needs: the core's port, the upstream card, the registry (for follow-ups) and the profile loaded at start. */
export interface V025FacadeDeps {
  port: AgentPort;
  cards: CardSource;
  config: GatewayConfig;
  registry: TaskRegistry;
  profile: MappingProfile;
}

/** `bailian.base-path` without trailing slashes: `/`, or e.g. `/bailian`. */
export function facadeBasePath(config: GatewayConfig): string {
  const trimmed = config.bailian['base-path'].replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** `path` under the facade's base path (`/stream` → `/bailian/stream`; at `/` unchanged). */
export function underBase(config: GatewayConfig, path: string): string {
  const base = facadeBasePath(config);
  return base === '/' ? path : `${base}${path}`;
}

/**
 * The facade's endpoint as its card advertises it: public base URL + base path, never with a
 * trailing slash, because Bailian appends `/stream` to it.
 */
export function facadeUrl(request: Request, config: GatewayConfig): string {
  const base = facadeBasePath(config);
  return `${publicBaseUrl(request, config)}${base === '/' ? '' : base}`;
}

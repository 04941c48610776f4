import type { GatewayConfig } from '../../config/schema.js';
import type { AgentPort } from '../../core/agent-port.js';
import type { CardSource } from '../../core/card-source.js';
import type { TaskAliases } from '../../core/task-aliases/index.js';
import type { TaskRegistry } from '../../core/task-registry/types.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025AgentCard } from '../../protocol/v025/index.js';
import { publicBaseUrl } from '../shared/public-url.js';

/** A 0.2.5/0.3 agent's own JSON-RPC endpoint, reached without translation (src/upstream/v025-passthrough.ts). */
export interface V025Relay {
  /** The agent's own card, fetched now. */
  card(signal?: AbortSignal): Promise<V025AgentCard>;
  /** The caller's JSON-RPC request relayed; the agent's answer comes back byte for byte (SSE included). */
  forward(request: Request, body: string): Promise<Response>;
}

/**
 * Whether the facade relays instead of translating, decided per call: the upstream's protocol may
 * only become known after start (an agent that was down then).
 */
export interface FacadePassThrough {
  /** The relay for a 0.2.5/0.3 upstream, undefined for a 1.0 one; waits for protocol detection (throws when it fails). */
  resolve(signal: () => AbortSignal): Promise<V025Relay | undefined>;
  /** The same without waiting: undefined also while the protocol is unknown. */
  current(): V025Relay | undefined;
}

/** What the 0.2.5 facade needs: the core's port, the upstream card, the registry (for follow-ups) and the profile loaded at start. */
export interface V025FacadeDeps {
  port: AgentPort;
  cards: CardSource;
  config: GatewayConfig;
  registry: TaskRegistry;
  /** Task ids callers chose themselves; default: kept in this process. */
  taskAliases?: TaskAliases;
  profile: MappingProfile;
  /** Aborted (reason: the error to report) when the gateway shuts down: open calls and streams end with it. */
  shutdown?: AbortSignal;
  /** Present when a 0.2.5/0.3 upstream is to be relayed as is (no 0.2.5 → 1.0 → 0.2.5 round trip). */
  passThrough?: FacadePassThrough;
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

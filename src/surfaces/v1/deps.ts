import type { CallerAuth } from '../shared/auth.js';
import type { AgentPort } from '../../core/agent-port.js';
import type { CardSource } from '../../core/card-source.js';
import type { ReferenceScope } from '../../core/task-scope.js';
import type { CardSigner } from '../../signing/card-signer.js';
import type { CallOptions } from '../shared/call-pipeline.js';
import type { OperationEnv } from '../shared/operations.js';
import type { PublicUrlConfig } from '../shared/public-url.js';
import type { AgentRoutesUpstream } from './agent-routes.js';
import { servedCard, type ServedCardConfig } from './card.js';
import { requireExtensions } from './required-extensions.js';

/** What the 1.0 surface (card, JSON-RPC, HTTP+JSON) reads of the config. */
export interface V1SurfaceOptions extends CallOptions {
  /** The gateway's credentials (`auth`), asked of every 1.0 route. */
  auth: CallerAuth;
  /** How callers reach the gateway (`public-url`, `trust-proxy`): the base URL the cards name. */
  publicUrl: PublicUrlConfig;
  /** `lenient-version`: a request without A2A-Version passes. */
  lenientVersion: boolean;
  /** `push-notifications`. */
  pushNotifications: boolean;
  /** What the served cards are built from. */
  card: ServedCardConfig;
  /** `card-legacy-fields`: the public card also carries 0.3's top-level fields. */
  cardLegacyFields: boolean;
}

export interface V1SurfaceDeps {
  port: AgentPort;
  cards: CardSource;
  options: V1SurfaceOptions;
  /** Aborted (reason: the error to report) when the gateway shuts down: open calls and streams end with it. */
  shutdown?: AbortSignal;
  /** Signs the served cards (public and extended) when `signing.keys` is configured. */
  signer?: CardSigner;
  /** Where the agent's own (non-A2A) routes are forwarded to; absent: they are not served. */
  agentRoutes?: AgentRoutesUpstream;
  /** Whose tasks and contexts the agent's own routes may name (the core's task scope rule); absent: any. */
  agentRouteScope?: ReferenceScope;
}

/**
 * The operation env of a 1.0 edge: message sends checked against the served card's required
 * extensions (the upstream card's when `cards` is given), the extended card served like the public one
 * (the gateway's interfaces and schemes, signed with `signer`) at `baseUrl`.
 */
export function v1OperationEnv(
  deps: { port: AgentPort; cards?: CardSource; signer?: CardSigner; options: Pick<V1SurfaceOptions, 'pushNotifications' | 'card'> },
  baseUrl: () => string,
): OperationEnv {
  const { port, cards, signer, options } = deps;
  return {
    port,
    pushNotifications: options.pushNotifications,
    requireExtensions: (ctx) => requireExtensions({ cards, extensions: options.card.extensions }, ctx),
    servedExtendedCard: async (card) => {
      const served = servedCard(card, baseUrl(), options.card);
      return signer ? signer.sign(served) : served;
    },
  };
}

import type { Handler } from 'hono';
import type { GatewayConfig } from '../../config/schema.js';
import type { CardSnapshot, CardSource } from '../../core/card-source.js';
import { withFields, type AgentCard, type AgentExtension, type AgentInterface } from '../../model/index.js';
import type { CardSigner } from '../../signing/card-signer.js';
import { V03_CARD_INTERFACE_FIELDS, v03CardFields } from '../../translate/index.js';
import { grpcPublicAddress } from '../grpc/address.js';
import { describeSecuritySchemes } from '../shared/auth.js';
import { cacheableJson } from '../shared/cacheable-json.js';
import type { GatewayEnv } from '../shared/env.js';
import { noteLog } from '../shared/log-fields.js';
import { publicBaseUrl, varyByForwardedHost, type PublicUrlConfig } from '../shared/public-url.js';
import { withGatewayExtensionUrls } from './extension-urls.js';

export { AGENT_CARD_PATH } from '../../gateway-routes.js';

/** Fields the served card recomputes; copying them from upstream would advertise the upstream, not the gateway. */
const REPLACED = new Set([
  'supportedInterfaces',
  'securitySchemes',
  'securityRequirements',
  'signatures',
  // 0.3 top-level fields iac-code appends; re-added below with the gateway's URLs when asked for.
  ...V03_CARD_INTERFACE_FIELDS,
]);

/** JSON-RPC, HTTP+JSON, and GRPC when the gRPC binding is on. */
export function gatewayInterfaces(baseUrl: string, config?: Pick<GatewayConfig, 'grpc' | 'host'>): AgentInterface[] {
  const interfaces: AgentInterface[] = [
    { url: `${baseUrl}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: baseUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ];
  const grpc = config ? grpcPublicAddress(config, baseUrl) : undefined;
  if (grpc) interfaces.push({ url: grpc, protocolBinding: 'GRPC', protocolVersion: '1.0' });
  return interfaces;
}

/** The gateway's own extensions from the config, as card entries (`required` only when true). */
export function gatewayExtensions(config: Pick<GatewayConfig, 'extensions'>): AgentExtension[] {
  return config.extensions.map(({ uri, description, required, params }) => ({
    uri,
    ...(description !== undefined ? { description } : {}),
    ...(required ? { required } : {}),
    ...(params !== undefined ? { params } : {}),
  }));
}

/** The upstream's extensions, then the gateway's own (an upstream entry with the same URI wins). */
export function cardExtensions(card: AgentCard, config: Pick<GatewayConfig, 'extensions'>): AgentExtension[] | undefined {
  const upstream = card.capabilities.extensions;
  if (config.extensions.length === 0) return upstream;
  const declared = new Set((upstream ?? []).map((extension) => extension.uri));
  return [...(upstream ?? []), ...gatewayExtensions(config).filter((extension) => !declared.has(extension.uri))];
}

/** The config a served card is built from. */
export type ServedCardConfig = Pick<GatewayConfig, 'grpc' | 'host' | 'auth' | 'extensions' | 'push-notifications'>;

/**
 * The upstream card as the gateway serves it: the gateway's own interfaces (JSON-RPC, HTTP+JSON, GRPC when on),
 * the gateway's auth schemes instead of the upstream's (none when gateway auth is off; skill-level
 * requirements naming upstream schemes are dropped too), no signatures (they covered the upstream's
 * content and would no longer verify; the gateway signs its own, card-signer.ts), `pushNotifications`
 * from the gateway config, the gateway's own extensions after the upstream's, extension params
 * pointing at the gateway instead of the upstream (extension-urls.ts). A clean 1.0 AgentCard: the 0.3
 * top-level fields iac-code appends are added back, pointing at the gateway, only with `legacyFields`
 * (the public card under `card-legacy-fields`).
 */
export function servedCard(card: AgentCard, baseUrl: string, config: ServedCardConfig, options = { legacyFields: false }): AgentCard {
  const interfaces = gatewayInterfaces(baseUrl, config);
  const security = describeSecuritySchemes(config.auth);
  const served: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(card)) {
    if (key === 'supportedInterfaces') served[key] = interfaces;
    else if (key === 'capabilities') {
      const capabilities = withGatewayExtensionUrls(card, baseUrl);
      const extensions = cardExtensions(withFields(card, { capabilities }), config);
      served[key] = withFields(capabilities, { pushNotifications: config['push-notifications'], ...(extensions ? { extensions } : {}) });
      if (security) Object.assign(served, security);
    } else if (key === 'skills') {
      served[key] = card.skills.map(({ securityRequirements: _upstream, ...skill }) => skill);
    } else if (!REPLACED.has(key)) served[key] = value;
  }
  if (!options.legacyFields) return served as unknown as AgentCard;
  return Object.assign(served, v03CardFields(interfaces as [AgentInterface, ...AgentInterface[]])) as unknown as AgentCard;
}

/** Per snapshot, the served card for each base URL seen (bounded: with trust-proxy the host is caller-chosen). */
const servedCache = new WeakMap<CardSnapshot, Map<string, AgentCard>>();
const MAX_BASE_URLS = 16;

function cachedServedCard(snapshot: CardSnapshot, baseUrl: string, options: CardHandlerOptions): AgentCard {
  let perBase = servedCache.get(snapshot);
  if (!perBase) {
    perBase = new Map();
    servedCache.set(snapshot, perBase);
  }
  let card = perBase.get(baseUrl);
  if (!card) {
    card = servedCard(snapshot.card, baseUrl, options.card, { legacyFields: options.cardLegacyFields });
    if (perBase.size >= MAX_BASE_URLS) perBase.delete(perBase.keys().next().value as string);
    perBase.set(baseUrl, card);
  }
  return card;
}

/** What the public card's route reads: the served card's config, `card-legacy-fields`, and how callers reach the gateway. */
export interface CardHandlerOptions {
  card: ServedCardConfig;
  cardLegacyFields: boolean;
  publicUrl: PublicUrlConfig;
}

const NOT_READY_BODY = JSON.stringify({ error: 'Upstream agent card is not available yet' });

/**
 * `GET /.well-known/agent-card.json`: the served card (signed when a signer is configured),
 * cacheable, or 503 until the first upstream card arrives.
 */
export function agentCardHandler(cards: CardSource, options: CardHandlerOptions, signer?: CardSigner): Handler<GatewayEnv> {
  return async (c) => {
    noteLog(c, { surface: 'card' });
    const snapshot = cards.current();
    if (!snapshot) {
      return new Response(NOT_READY_BODY, {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '5' },
      });
    }
    const request = c.req.raw;
    const served = cachedServedCard(snapshot, publicBaseUrl(request, options.publicUrl), options);
    return varyByForwardedHost(cacheableJson(request, signer ? await signer.sign(served) : served, snapshot.fetchedAt), options.publicUrl);
  };
}

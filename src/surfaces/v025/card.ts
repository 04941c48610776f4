import type { Handler } from 'hono';
import type { CallContext } from '../../core/agent-port.js';
import { A2AError, ErrorCode, retryAfterHeader, toA2AError, type AgentCard } from '../../model/index.js';
import type { V025AgentCard } from '../../protocol/v025/index.js';
import { cardToV025, type CardToV025Options } from '../../translate/index.js';
import { cacheableJson } from '../shared/cacheable-json.js';
import type { GatewayEnv } from '../shared/env.js';
import { noteLog } from '../shared/log-fields.js';
import { portCall } from '../shared/port-call.js';
import { varyByForwardedHost } from '../shared/public-url.js';
import { FACADE_KEY_HEADER, extendedCardForFacadeCallers, facadeKeys } from './auth.js';
import { facadeUrl, type V025FacadeDeps } from './deps.js';
import { facadeExtensions } from './extensions.js';
import { passThroughCard, relayCardCache } from './relay/passthrough.js';

/** The 0.2.5 card of the facade for an upstream (1.0) card, served at `url`. */
export function facadeCard(card: AgentCard, url: string, deps: V025FacadeDeps): V025AgentCard {
  const { options, profile } = deps;
  const { bailian } = options;
  const cardOptions: CardToV025Options = {
    url,
    profile,
    overrides: bailian.card,
    extensions: facadeExtensions(card, options.extensions),
    pushNotifications: options.pushNotifications,
    extendedCard: offersExtendedCard(card, deps),
    ...(facadeKeys(bailian).length > 0 ? { apiKeyHeader: FACADE_KEY_HEADER } : {}),
  };
  return cardToV025(card, cardOptions);
}

/**
 * The facade serves the extended card when the upstream offers one and, with gateway auth on, only to
 * authenticated callers: that needs the facade's own key (`bailian.api-key`), without which every
 * facade caller is anonymous.
 */
function offersExtendedCard(card: AgentCard, deps: V025FacadeDeps): boolean {
  return card.capabilities.extendedAgentCard === true && extendedCardForFacadeCallers(deps.options);
}

/** `agent/getAuthenticatedExtendedCard`: the upstream's extended card as a facade card, or -32007. */
export async function extendedFacadeCard(ctx: CallContext, url: string, deps: V025FacadeDeps): Promise<V025AgentCard> {
  const snapshot = deps.cards.current();
  if (!snapshot || !offersExtendedCard(snapshot.card, deps)) throw A2AError.extendedCardNotConfigured();
  return facadeCard(await deps.port.getExtendedAgentCard(ctx), url, deps);
}

/** 0.2.5's path of the extended card, next to the card's `url` (S025 §7.10): an HTTP GET, not a JSON-RPC method. */
export const EXTENDED_CARD_PATH = '/agent/authenticatedExtendedCard';

/**
 * `GET {url}/agent/authenticatedExtendedCard`: the extended card a 0.2.5 client reads when the facade card says
 * `supportsAuthenticatedExtendedCard` (0.3's `agent/getAuthenticatedExtendedCard` is the dialect's). Behind the facade
 * key like the calls; 404 where the card does not advertise it: no extended card offered, or a relayed agent's card
 * (passThroughCard leaves the flag out). 0.2.5 gives this route HTTP statuses, no error body: any other failure is
 * its A2A error's status (an agent out of reach: 503) with `{"error": message}`, as the gateway's other plain routes.
 */
export function extendedFacadeCardHandler(deps: V025FacadeDeps): Handler<GatewayEnv> {
  return async (c) => {
    noteLog(c, { surface: 'v025' });
    const call = portCall(c, 'v025', deps.shutdown);
    try {
      if (deps.passThrough?.current()) throw A2AError.extendedCardNotConfigured();
      return c.json(await extendedFacadeCard(call.ctx, facadeUrl(c.req.raw, deps.options), deps));
    } catch (caught) {
      const error = toA2AError(caught);
      noteLog(c, { errorCode: error.code });
      const status = error.code === ErrorCode.ExtendedAgentCardNotConfigured ? 404 : error.statusInfo.httpStatus;
      return Response.json({ error: error.message }, { status, headers: retryAfterHeader(error) });
    } finally {
      call.release();
    }
  };
}

/** Per source card, the card for each facade URL seen (bounded: with trust-proxy the host is caller-chosen). */
const cache = new WeakMap<object, Map<string, V025AgentCard>>();
const MAX_URLS = 16;

function cachedCard(source: object, url: string, build: () => V025AgentCard): V025AgentCard {
  let perUrl = cache.get(source);
  if (!perUrl) cache.set(source, (perUrl = new Map<string, V025AgentCard>()));
  let card = perUrl.get(url);
  if (!card) {
    card = build();
    if (perUrl.size >= MAX_URLS) perUrl.delete(perUrl.keys().next().value as string);
    perUrl.set(url, card);
  }
  return card;
}

const NOT_READY_BODY = JSON.stringify({ error: 'Upstream agent card is not available yet' });
const notReady = (): Response => new Response(NOT_READY_BODY, { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } });

/**
 * `GET {base}/.well-known/agent.json`: the facade card, cacheable like the 1.0 card (ETag,
 * Last-Modified, max-age 60), or 503 until the first upstream card arrives. Open without the key:
 * Bailian's console reads the card before any key is involved, and the card holds no secret. In front
 * of a 0.2.5/0.3 agent it is the agent's own card, rewritten (passThroughCard).
 */
export function facadeCardHandler(deps: V025FacadeDeps): Handler<GatewayEnv> {
  const { cards, options } = deps;
  const agentCard = relayCardCache();
  return async (c) => {
    noteLog(c, { surface: 'card' });
    const snapshot = cards.current();
    if (!snapshot) return notReady();
    const request = c.req.raw;
    const url = facadeUrl(request, options);
    // A snapshot means the upstream was reached, so its protocol is known by now.
    const relay = deps.passThrough?.current();
    let card: V025AgentCard;
    if (relay) {
      const own = await agentCard(snapshot, relay);
      if (!own) return notReady();
      card = cachedCard(own, url, () => passThroughCard(own, url, deps));
    } else {
      card = cachedCard(snapshot, url, () => facadeCard(snapshot.card, url, deps));
    }
    return varyByForwardedHost(cacheableJson(request, card, snapshot.fetchedAt), options.publicUrl);
  };
}

import type { Handler } from 'hono';
import type { CardSnapshot } from '../../core/card-source.js';
import type { AgentCard } from '../../model/index.js';
import type { V025AgentCard } from '../../protocol/v025/index.js';
import { cardToV025, type CardToV025Options } from '../../translate/index.js';
import { cacheableJson } from '../shared/cacheable-json.js';
import type { GatewayEnv } from '../shared/env.js';
import { noteLog } from '../shared/log-fields.js';
import { FACADE_KEY_HEADER } from './auth.js';
import { facadeUrl, type V025FacadeDeps } from './deps.js';
import { facadeExtensions } from './extensions.js';

/** The 0.2.5 card of the facade for an upstream (1.0) card, served at `url`. */
export function facadeCard(card: AgentCard, url: string, deps: V025FacadeDeps): V025AgentCard {
  const { config, profile } = deps;
  const bailian = config.bailian;
  const options: CardToV025Options = {
    url,
    profile,
    overrides: bailian.card,
    extensions: facadeExtensions(card),
    pushNotifications: config['push-notifications'],
    ...(bailian['api-key'] ? { apiKeyHeader: FACADE_KEY_HEADER } : {}),
  };
  return cardToV025(card, options);
}

/** Per snapshot, the card for each facade URL seen (bounded: with trust-proxy the host is caller-chosen). */
const cache = new WeakMap<CardSnapshot, Map<string, V025AgentCard>>();
const MAX_URLS = 16;

function cachedCard(snapshot: CardSnapshot, url: string, deps: V025FacadeDeps): V025AgentCard {
  let perUrl = cache.get(snapshot);
  if (!perUrl) cache.set(snapshot, (perUrl = new Map()));
  let card = perUrl.get(url);
  if (!card) {
    card = facadeCard(snapshot.card, url, deps);
    if (perUrl.size >= MAX_URLS) perUrl.delete(perUrl.keys().next().value as string);
    perUrl.set(url, card);
  }
  return card;
}

const NOT_READY_BODY = JSON.stringify({ error: 'Upstream agent card is not available yet' });

/**
 * `GET {base}/.well-known/agent.json`: the facade card, cacheable like the 1.0 card (ETag,
 * Last-Modified, max-age 60), or 503 until the first upstream card arrives. Open without the key:
 * Bailian's console reads the card before any key is involved, and the card holds no secret.
 */
export function facadeCardHandler(deps: V025FacadeDeps): Handler<GatewayEnv> {
  const { cards, config } = deps;
  return (c) => {
    noteLog(c, { surface: 'card' });
    const snapshot = cards.current();
    if (!snapshot) {
      return new Response(NOT_READY_BODY, { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } });
    }
    const request = c.req.raw;
    const response = cacheableJson(request, cachedCard(snapshot, facadeUrl(request, config), deps), snapshot.fetchedAt);
    if (config['trust-proxy'] && !config['public-url']) response.headers.set('vary', 'X-Forwarded-Proto, X-Forwarded-Host');
    return response;
  };
}

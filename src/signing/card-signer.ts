import { FlattenedSign } from 'jose';
import { LRUCache } from 'lru-cache';
import { withFields, type AgentCard } from '../model/index.js';
import { cardPayload } from './card-payload.js';
import type { KeyRing, PrivateSigningKey, PublishedJwk } from './keys.js';

/** One entry of a card's `signatures`: a flattened JWS whose payload (the canonical card) is left out. */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

export interface CardSigner {
  /** The card with the gateway's signature as its only one. Made once per distinct card content. */
  sign(card: AgentCard): Promise<AgentCard>;
  /** The JWK Set published at /.well-known/jwks.json. */
  jwks(): { keys: PublishedJwk[] };
}

export const JWKS_PATH = '/.well-known/jwks.json';

export interface CardSignerOptions {
  /** Where the JWKS is published (`public-url` + JWKS_PATH); put in the protected header as `jku`. */
  jwksUrl?: string;
}

const encoder = new TextEncoder();

async function signature(payload: string, key: PrivateSigningKey, jku: string | undefined): Promise<AgentCardSignature> {
  const header = { alg: key.alg, kid: key.kid, typ: 'JOSE', ...(jku ? { jku } : {}) };
  const jws = await new FlattenedSign(encoder.encode(payload)).setProtectedHeader(header).sign(key.key);
  return { protected: jws.protected as string, signature: jws.signature };
}

/**
 * Signs the gateway's own cards with the first key of the ring. ES256/EdDSA signatures are not
 * deterministic, so each distinct payload is signed once and the signature reused: the card (and
 * its ETag) only changes when its content does. Undefined when no key is configured.
 */
export function createCardSigner(ring: KeyRing, options: CardSignerOptions = {}): CardSigner | undefined {
  const key = ring.signer;
  if (!key) return undefined;
  // An HS256 verifier holds the secret already; pointing it at a JWKS without that key would mislead.
  const jku = key.alg === 'HS256' ? undefined : options.jwksUrl;
  const byPayload = new LRUCache<string, Promise<AgentCardSignature>>({ max: 64 });
  const byCard = new WeakMap<AgentCard, Promise<AgentCard>>();
  const jwks = { keys: ring.published };

  async function signed(card: AgentCard): Promise<AgentCard> {
    const payload = cardPayload(card);
    let pending = byPayload.get(payload);
    if (!pending) {
      pending = signature(payload, key as PrivateSigningKey, jku);
      byPayload.set(payload, pending);
      pending.catch(() => byPayload.delete(payload));
    }
    const { signatures: _upstream, ...rest } = card;
    return withFields(rest, { signatures: [await pending] });
  }

  return {
    sign(card) {
      let pending = byCard.get(card);
      if (!pending) {
        pending = signed(card);
        byCard.set(card, pending);
      }
      return pending;
    },
    jwks: () => jwks,
  };
}

import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../config/config-error.js';
import type { SigningKeyConfig } from '../config/schema.js';
import { withFields } from '../model/index.js';

export type SigningAlg = 'ES256' | 'EdDSA' | 'HS256';

export interface PrivateSigningKey {
  kid: string;
  alg: SigningAlg;
  key: KeyObject | Uint8Array;
}

/** A public JWK as published at /.well-known/jwks.json. */
export type PublishedJwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };

export interface KeyRing {
  /** The first configured key; undefined when `signing.keys` is empty or the first entry cannot sign. */
  signer?: PrivateSigningKey;
  /** Every asymmetric key's public half, signer first. HS256 secrets are never published. */
  published: PublishedJwk[];
}

/** PEM text, or a JWK when it looks like JSON. */
function keyInput(text: string): { key: string } | { key: JsonWebKey; format: 'jwk' } {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return { key: trimmed };
  return { key: JSON.parse(trimmed) as JsonWebKey, format: 'jwk' };
}

/** ES256 for a P-256 key, EdDSA for Ed25519; anything else cannot sign an A2A card here. */
function algOf(key: KeyObject): 'ES256' | 'EdDSA' | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  return undefined;
}

async function material(inline: string | undefined, file: string | undefined): Promise<string | undefined> {
  if (inline !== undefined) return inline;
  return file === undefined ? undefined : readFile(file, 'utf8');
}

function published(key: KeyObject, kid: string, alg: string): PublishedJwk {
  const { d: _private, ...jwk } = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
  return withFields(jwk, { kid, alg, use: 'sig' as const });
}

async function loadOne(entry: SigningKeyConfig, where: string): Promise<{ signer?: PrivateSigningKey; jwk?: PublishedJwk }> {
  const { kid } = entry;
  if (entry.secret !== undefined) {
    if (entry.alg !== undefined && entry.alg !== 'HS256') throw new ConfigError(`${where}: a secret signs with HS256 only`);
    return { signer: { kid, alg: 'HS256', key: new TextEncoder().encode(entry.secret) } };
  }
  if (entry.alg === 'HS256') throw new ConfigError(`${where}: HS256 needs a secret`);
  const privateText = await material(entry['private-key'], entry['private-key-file']).catch(() => {
    throw new ConfigError(`${where}: private-key-file cannot be read`);
  });
  if (privateText !== undefined) {
    let key: KeyObject;
    try {
      key = createPrivateKey(keyInput(privateText));
    } catch {
      throw new ConfigError(`${where}: the private key is neither a PKCS#8 PEM nor a private JWK`);
    }
    const alg = algOf(key);
    if (!alg || (entry.alg !== undefined && entry.alg !== alg)) {
      throw new ConfigError(`${where}: the private key does not fit ${entry.alg ?? 'ES256 or EdDSA'} (use a P-256 or Ed25519 key)`);
    }
    return { signer: { kid, alg, key }, jwk: published(key, kid, alg) };
  }
  const publicText = await material(entry['public-key'], entry['public-key-file']).catch(() => {
    throw new ConfigError(`${where}: public-key-file cannot be read`);
  });
  if (publicText === undefined) throw new ConfigError(`${where}: set secret, private-key(-file) or public-key(-file)`);
  let key: KeyObject;
  try {
    key = createPublicKey(keyInput(publicText));
  } catch {
    throw new ConfigError(`${where}: the public key is neither an SPKI PEM nor a JWK`);
  }
  const alg = algOf(key);
  if (!alg) throw new ConfigError(`${where}: the public key is neither P-256 nor Ed25519`);
  return { jwk: published(key, kid, alg) };
}

/** `signing.keys` read and checked at start: a bad entry is a ConfigError naming it (never its value). */
export async function loadKeyRing(entries: readonly SigningKeyConfig[]): Promise<KeyRing> {
  const ring: KeyRing = { published: [] };
  const kids = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const where = `signing.keys[${index}] (kid ${entry.kid})`;
    if (kids.has(entry.kid)) throw new ConfigError(`${where}: kid is used twice`);
    kids.add(entry.kid);
    const { signer, jwk } = await loadOne(entry, where);
    if (index === 0) {
      if (!signer) throw new ConfigError(`${where}: the first key signs, so it needs a private key or a secret`);
      ring.signer = signer;
    }
    if (jwk) ring.published.push(jwk);
  }
  return ring;
}

import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { importJWK, type JWK } from 'jose';
import { ConfigError } from '../config/config-error.js';
import type { CardVerificationConfig } from '../config/card-verification-schema.js';
import { fetchJwks, type JwksFetchOptions } from './jwks-fetch.js';

export type VerificationKey = Awaited<ReturnType<typeof importJWK>> | KeyObject;

export interface SignatureHeader {
  alg: string;
  kid?: string;
}

/** Where the upstream's card keys come from (config `upstream.card-verification`). */
export interface KeySource {
  /** The keys that may have made a signature with this header; empty when none is known. */
  keysFor(header: SignatureHeader): Promise<VerificationKey[]>;
}

/** An unknown kid refetches the JWKS, but not more often than this: a forged kid must not make the gateway hammer the key server. */
const REFETCH_COOLDOWN_MS = 30_000;

/** Where keys may come from: a card's verification keys, or the keys callers' tokens are signed with (auth.jwt). */
export type KeySourceConfig = Pick<
  CardVerificationConfig,
  'secret' | 'secret-kid' | 'jwks-file' | 'jwks-url' | 'jwks-allow-private' | 'jwks-cache-ms'
>;

export interface KeySourceOptions {
  /** The config block, named in errors (default `upstream.card-verification`). */
  configKey?: string;
  fetch?: Partial<JwksFetchOptions>;
  /** Default 30 s. */
  refetchCooldownMs?: number;
}

function matching(keys: unknown[], header: SignatureHeader): JWK[] {
  return keys.filter((key): key is JWK => {
    if (typeof key !== 'object' || key === null) return false;
    const jwk = key as JWK;
    if (header.kid !== undefined && jwk.kid !== undefined && jwk.kid !== header.kid) return false;
    if (jwk.alg !== undefined && jwk.alg !== header.alg) return false;
    if (jwk.use !== undefined && jwk.use !== 'sig') return false;
    return true;
  });
}

async function imported(jwks: JWK[], alg: string): Promise<VerificationKey[]> {
  const keys: VerificationKey[] = [];
  for (const jwk of jwks) {
    try {
      keys.push(await importJWK(jwk, alg));
    } catch {
      // A key of another type than the algorithm needs cannot have made this signature.
    }
  }
  return keys;
}

/**
 * A JWK Set loaded by `load`, reused for `cacheMs`; an unknown kid loads it again (after a cooldown),
 * so a key the upstream rotated in is picked up without waiting for the cache to expire.
 */
function cachedJwks(load: () => Promise<{ keys: unknown[] }>, cacheMs: number, cooldownMs: number, now = Date.now): KeySource {
  let current: { keys: unknown[]; loadedAt: number } | undefined;
  let inFlight: Promise<void> | undefined;
  const refresh = (): Promise<void> =>
    (inFlight ??= load()
      .then((set) => {
        current = { keys: set.keys, loadedAt: now() };
      })
      .finally(() => {
        inFlight = undefined;
      }));
  // A failed reload keeps the keys loaded before: the key server being down must not untrust a known
  // key. Only without any keys yet does the failure count.
  const reload = async (): Promise<void> => {
    try {
      await refresh();
    } catch (error) {
      if (!current) throw error;
    }
  };
  return {
    async keysFor(header) {
      if (!current || now() - current.loadedAt >= cacheMs) await reload();
      let found = matching(current?.keys ?? [], header);
      if (found.length === 0 && current && now() - current.loadedAt >= cooldownMs) {
        await reload();
        found = matching(current.keys, header);
      }
      return imported(found, header.alg);
    },
  };
}

function secretSource(secret: string, kid: string | undefined): KeySource {
  const key = new TextEncoder().encode(secret);
  return {
    keysFor: async (header) => (header.alg === 'HS256' && (kid === undefined || header.kid === kid) ? [key] : []),
  };
}

/** A local JWK Set; throws an Error naming the config key when it cannot be used. */
export async function readJwksFile(path: string, configKey: string): Promise<{ keys: unknown[] }> {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    throw new Error(`${configKey}.jwks-file cannot be read as JSON`);
  }
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error(`${configKey}.jwks-file has no "keys" list`);
  return { keys };
}

/** Every configured source, asked in turn: the secret, the local JWKS file, the JWKS URL. */
export function createKeySource(config: KeySourceConfig, options: KeySourceOptions = {}): KeySource {
  const configKey = options.configKey ?? 'upstream.card-verification';
  const cooldownMs = options.refetchCooldownMs ?? REFETCH_COOLDOWN_MS;
  const sources: KeySource[] = [];
  if (config.secret !== undefined) sources.push(secretSource(config.secret, config['secret-kid']));
  const file = config['jwks-file'];
  // The file is the operator's own: re-read on an unknown kid too, but it costs nothing to cache briefly.
  if (file !== undefined) sources.push(cachedJwks(() => readJwksFile(file, configKey), Math.min(config['jwks-cache-ms'], 60_000), cooldownMs));
  const url = config['jwks-url'];
  if (url !== undefined) {
    const fetchOptions: JwksFetchOptions = { allowPrivate: config['jwks-allow-private'], timeoutMs: 5_000, ...options.fetch };
    sources.push(cachedJwks(() => fetchJwks(url, fetchOptions), config['jwks-cache-ms'], cooldownMs));
  }
  if (sources.length === 0) {
    throw new ConfigError(`${configKey}: set secret, jwks-file or jwks-url (the keys to verify against)`);
  }
  return {
    async keysFor(header) {
      const keys: VerificationKey[] = [];
      for (const source of sources) keys.push(...(await source.keysFor(header)));
      return keys;
    },
  };
}

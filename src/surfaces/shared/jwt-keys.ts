import { ConfigError } from '../../config/config-error.js';
import { withFields } from '../../model/index.js';
import { usesDiscovery, type JwtAuthConfig } from '../../config/jwt-schema.js';
import type { JwksFetchOptions } from '../../signing/jwks-fetch.js';
import { discoverJwksUrl } from '../../signing/openid-discovery.js';
import { createKeySource, readJwksFile, type KeySource, type KeySourceOptions } from '../../signing/upstream-keys.js';

export type JwtKeyOptions = Pick<KeySourceOptions, 'fetch' | 'refetchCooldownMs'> & { now?: () => number };

/** After a failed discovery, the next token waits this long before the provider is asked again. */
const REDISCOVERY_COOLDOWN_MS = 30_000;
/**
 * A token naming a key the JWKS does not hold, this long after the OpenID configuration was read, reads
 * it again: the provider may have moved its JWKS to another address. At most once per interval, so
 * tokens with made-up kids cannot make the gateway hammer the provider.
 */
const REDISCOVER_AFTER_MS = 5 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;

interface Discovered {
  source: KeySource;
  url: string;
  readAt: number;
}

/**
 * The keys callers' tokens must verify against: the configured JWKS URL, file or secret, or, with none
 * of them, the JWKS the issuer's OpenID configuration names (found at the first token, found again after
 * a failure at most every 30 s, so a provider that was down at start is picked up once it answers, and
 * when a token names a key the JWKS lacks, at most every 5 minutes, so a JWKS that moved is followed).
 */
export function jwtKeySource(config: JwtAuthConfig, options: JwtKeyOptions = {}): KeySource {
  const sourceOptions = { configKey: 'auth.jwt', ...options };
  if (!usesDiscovery(config)) return createKeySource(config, sourceOptions);
  const now = options.now ?? Date.now;
  const fetchOptions = providerFetchOptions(config, options);
  const keysAt = (url: string): Discovered => ({
    source: createKeySource(withFields(config, { 'jwks-url': url }), sourceOptions),
    url,
    readAt: now(),
  });
  let discovered: Promise<Discovered> | undefined;
  let failedAt = -Infinity;

  function discover(): Promise<Discovered> {
    if (!discovered) {
      if (now() - failedAt < REDISCOVERY_COOLDOWN_MS) return Promise.reject(new Error('the OpenID configuration could not be read lately'));
      discovered = discoverJwksUrl(config.issuer, fetchOptions).then(keysAt, (error: unknown) => {
        failedAt = now();
        discovered = undefined;
        throw error;
      });
    }
    return discovered;
  }

  return {
    async keysFor(header) {
      const current = await discover();
      const keys = await current.source.keysFor(header);
      if (keys.length > 0 || now() - current.readAt < REDISCOVER_AFTER_MS) return keys;
      current.readAt = now();
      const url = await discoverJwksUrl(config.issuer, fetchOptions).catch(() => current.url);
      if (url === current.url) return keys;
      const moved = keysAt(url);
      discovered = Promise.resolve(moved);
      return moved.source.keysFor(header);
    },
  };
}

/** How the provider's documents are read: the JWKS fetch's own rules, with the test's lookup when given. */
const providerFetchOptions = (config: JwtAuthConfig, options: JwtKeyOptions): JwksFetchOptions => ({
  allowPrivate: config['jwks-allow-private'],
  timeoutMs: FETCH_TIMEOUT_MS,
  ...(options.fetch?.lookup ? { lookup: options.fetch.lookup } : {}),
});

/**
 * At start: a JWKS file that cannot be used is a configuration error (every token would be refused).
 * A JWKS URL or an OpenID configuration is read by the verifier itself at start (JwtCallers.loadKeys),
 * which only warns when it does not answer, since the provider may come up after the gateway.
 */
export async function checkJwtKeyFile(config: JwtAuthConfig | undefined): Promise<void> {
  const file = config?.['jwks-file'];
  if (file === undefined) return;
  const { keys } = await readJwksFile(file, 'auth.jwt').catch((error: Error) => {
    throw new ConfigError(error.message);
  });
  if (keys.length === 0 && config?.secret === undefined) throw new ConfigError('auth.jwt.jwks-file holds no keys');
}

import type { Logger } from 'pino';
import { ConfigError } from '../../config/config-error.js';
import { withFields } from '../../model/index.js';
import { usesDiscovery, type JwtAuthConfig } from '../../config/jwt-schema.js';
import { fetchJwks, type JwksFetchOptions } from '../../signing/jwks-fetch.js';
import { discoverJwksUrl } from '../../signing/openid-discovery.js';
import { createKeySource, readJwksFile, type KeySource, type KeySourceOptions } from '../../signing/upstream-keys.js';

export type JwtKeyOptions = Pick<KeySourceOptions, 'fetch' | 'refetchCooldownMs'> & { now?: () => number };

/** After a failed discovery, the next token waits this long before the provider is asked again. */
const REDISCOVERY_COOLDOWN_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * The keys callers' tokens must verify against: the configured JWKS URL, file or secret, or, with none
 * of them, the JWKS the issuer's OpenID configuration names (found at the first token, found again after
 * a failure at most every 30 s, so a provider that was down at start is picked up once it answers).
 */
export function jwtKeySource(config: JwtAuthConfig, options: JwtKeyOptions = {}): KeySource {
  const sourceOptions = { configKey: 'auth.jwt', ...options };
  if (!usesDiscovery(config)) return createKeySource(config, sourceOptions);
  const now = options.now ?? Date.now;
  let discovered: Promise<KeySource> | undefined;
  let failedAt = -Infinity;
  return {
    async keysFor(header) {
      if (!discovered) {
        if (now() - failedAt < REDISCOVERY_COOLDOWN_MS) throw new Error('the OpenID configuration could not be read lately');
        discovered = discoverJwksUrl(config.issuer, providerFetchOptions(config, options)).then(
          (url) => createKeySource(withFields(config, { 'jwks-url': url }), sourceOptions),
          (error: unknown) => {
            failedAt = now();
            discovered = undefined;
            throw error;
          },
        );
      }
      return (await discovered).keysFor(header);
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
 * At start: a JWKS file that cannot be used is a configuration error (every token would be refused);
 * a JWKS URL, or an OpenID configuration, that does not answer yet only warns, since the provider may
 * come up after the gateway.
 */
export async function checkJwtKeys(config: JwtAuthConfig | undefined, logger: Pick<Logger, 'warn'>): Promise<void> {
  if (!config) return;
  const file = config['jwks-file'];
  if (file !== undefined) {
    const { keys } = await readJwksFile(file, 'auth.jwt').catch((error: Error) => {
      throw new ConfigError(error.message);
    });
    if (keys.length === 0 && config.secret === undefined) throw new ConfigError('auth.jwt.jwks-file holds no keys');
  }
  const fetchOptions = providerFetchOptions(config, {});
  const url = config['jwks-url'];
  const warn = (what: string) => (error: Error) => {
    logger.warn({ reason: error.message }, `auth.jwt: ${what} cannot be read yet: tokens are refused until it can`);
  };
  if (url !== undefined) await fetchJwks(url, fetchOptions).catch(warn('jwks-url'));
  else if (usesDiscovery(config)) {
    await discoverJwksUrl(config.issuer, fetchOptions)
      .then((found) => fetchJwks(found, fetchOptions))
      .catch(warn("the issuer's OpenID configuration or its JWKS"));
  }
}

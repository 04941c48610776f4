import type { GatewayConfig } from './config/schema.js';
import { ConfigError } from './config/config-error.js';
import { settingAsSet } from './config/setting-sources.js';
import { redisKeyGroups } from './redis-cluster-check.js';
import { askRedisOnce } from './redis-probe.js';
import { redisEndpoint } from './redis-tls.js';

/** What a Redis answers a client whose user or password it does not take (Redis 6+, and older ones). */
const REFUSED_CREDENTIALS = /^(?:WRONGPASS|NOAUTH)\b|^ERR invalid password/;

/**
 * Stops the start when a Redis the gateway uses refuses its credentials: that does not mend itself,
 * and a gateway started anyway answers every call that needs the store with an internal error while
 * it logs the refusal several times a second. A Redis that cannot be reached now is not a reason to
 * stop (it may start after the gateway; the stores reconnect and `/ready` says so meanwhile). The line
 * names the setting as the operator set it: REDIS_URL when that gave the URL, as the config load does.
 */
export async function assertRedisTakesCredentials(config: GatewayConfig): Promise<void> {
  const checked = new Set<string>();
  for (const { setting, url } of redisKeyGroups(config)) {
    if (checked.has(url)) continue;
    checked.add(url);
    const refusal = await askRedisOnce(redisEndpoint(config, url), (redis) => redis.ping()).then(
      () => undefined,
      (error: Error) => (REFUSED_CREDENTIALS.test(error.message) ? error.message : undefined),
    );
    if (refusal)
      throw new ConfigError(`${settingAsSet(config, setting)}: the Redis refuses the configured user or password (${refusal.slice(0, 120)})`);
  }
}

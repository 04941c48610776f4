import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import { ConfigError } from '../config/config-error.js';
import { settingAsSet } from '../config/setting-sources.js';
import { redisKeyGroups } from './cluster-check.js';
import { PASSWORD_NOT_NEEDED_EVENT } from './connection.js';
import { askRedisOnce } from './probe.js';
import { redisEndpoint } from './tls.js';
import { withoutUrlCredentials } from '../url-credentials.js';

/** What a Redis answers a client whose user or password it does not take (Redis 6+, and older ones). */
const REFUSED_CREDENTIALS = /^(?:WRONGPASS|NOAUTH)\b|^ERR invalid password/;

/**
 * Stops the start when a Redis the gateway uses refuses its credentials: that does not mend itself,
 * and a gateway started anyway answers every call that needs the store with an internal error while
 * it logs the refusal several times a second. A Redis that cannot be reached now is not a reason to
 * stop (it may start after the gateway; the stores reconnect and `/ready` says so meanwhile). The line
 * names the setting as the operator set it: REDIS_URL when that gave the URL, as the config load does.
 */
export async function assertRedisTakesCredentials(config: GatewayConfig, logger?: Pick<Logger, 'warn'>): Promise<void> {
  const checked = new Set<string>();
  for (const { setting, url } of redisKeyGroups(config)) {
    if (checked.has(url)) continue;
    checked.add(url);
    let passwordNotNeeded = false;
    const watch = (redis: Redis) => redis.once(PASSWORD_NOT_NEEDED_EVENT, () => (passwordNotNeeded = true));
    const refusal = await askRedisOnce(redisEndpoint(config, url), (redis) => redis.ping(), watch).then(
      () => undefined,
      (error: Error) => (REFUSED_CREDENTIALS.test(error.message) ? error.message : undefined),
    );
    if (refusal)
      throw new ConfigError(`${settingAsSet(config, setting)}: the Redis refuses the configured user or password (${refusal.slice(0, 120)})`);
    if (passwordNotNeeded) logger?.warn(passwordNotNeededWarning(settingAsSet(config, setting), url));
  }
}

/**
 * A password the Redis does not ask for works (Redis lets every connection in), but the operator who wrote
 * it believes the Redis wants it: said once, at start, where the log is read (ioredis's own line is not printed).
 */
const passwordNotNeededWarning = (setting: string, url: string): string =>
  `${setting}: the Redis at ${withoutUrlCredentials(url)} asks for no password, but the URL gives one: whoever reaches the Redis ` +
  `reads and writes the gateway's tasks and conversations without it (set requirepass on the Redis, or take the password out of ${setting})`;

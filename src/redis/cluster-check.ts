import type { GatewayConfig } from '../config/schema.js';
import { ConfigError } from '../config/config-error.js';
import { settingAsSet } from '../config/setting-sources.js';
import { askRedisOnce } from './probe.js';
import { redisEndpoint, type RedisEndpoint } from './tls.js';

/**
 * The part of a key a Redis Cluster hashes to pick its slot: the text between the first `{` and the
 * next `}` when that is not empty, else the whole key (the cluster's hash tag rule).
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

export interface RedisKeyGroup {
  /** The setting that names the Redis. */
  setting: 'redis-url' | 'push-redis-url';
  url: string;
  names: Record<string, string>;
}

/** Each Redis the config uses, with the key names whose scripts and transactions span several keys. */
export function redisKeyGroups(config: GatewayConfig): RedisKeyGroup[] {
  const groups: RedisKeyGroup[] = [];
  // Every key of the registry, turn lanes, task aliases and push configs, follows and claims starts with
  // the prefix; two example keys stand for all of them.
  if (config.store === 'redis') groups.push({ setting: 'redis-url', url: config['redis-url'], names: { 'redis-prefix': config['redis-prefix'] } });
  if (config['push-notifications'] && config['push-queue'] === 'redis-streams') {
    groups.push({
      setting: config['push-redis-url'] ? 'push-redis-url' : 'redis-url',
      url: config['push-redis-url'] ?? config['redis-url'],
      names: { 'push-stream': config['push-stream'], 'push-retry-key': config['push-retry-key'], 'push-dead-stream': config['push-dead-stream'] },
    });
  }
  return groups;
}

/** What is wrong with these names on a cluster, or undefined: all of one group's keys must share one slot. */
export function clusterProblem(names: Record<string, string>): string | undefined {
  // Keys under a prefix differ after it: only a hash tag inside the prefix puts them in one slot.
  const keys = Object.entries(names).flatMap(([setting, name]) =>
    setting === 'redis-prefix' ? [[setting, `${name}t:a`] as const, [setting, `${name}o:b`] as const] : [[setting, name] as const],
  );
  const tags = new Set(keys.map(([, key]) => hashTagOf(key)));
  if (tags.size <= 1) return undefined;
  const settings = [...new Set(keys.map(([setting]) => setting))].join(', ');
  return `the Redis is a cluster, and ${settings} must share one hash tag so that every key is in one slot (e.g. redis-prefix: "{a2a-bridge}:", push-stream: "{a2a-bridge}:push")`;
}

/** Whether the Redis at `endpoint` says it runs in cluster mode; undefined when it cannot be asked now. */
async function isCluster(endpoint: RedisEndpoint): Promise<boolean | undefined> {
  return askRedisOnce(endpoint, (redis) => redis.info('cluster')).then(
    (info) => /cluster_enabled:1/.test(info),
    () => undefined,
  );
}

/**
 * Stops the start when a Redis the gateway uses is a cluster and the key names would spread over its
 * slots: every multi-key script and transaction would be refused (CROSSSLOT) while single-key reads
 * still worked, so tasks would be answered but never recorded. A Redis that cannot be asked now is not
 * checked (the stores report it once they connect); a cluster proxy that hides its mode is not seen.
 * The line starts with the setting (or REDIS_URL) that names the cluster: with push-redis-url, either may.
 */
export async function assertRedisKeysFitCluster(config: GatewayConfig): Promise<void> {
  for (const group of redisKeyGroups(config)) {
    const problem = clusterProblem(group.names);
    if (problem && (await isCluster(redisEndpoint(config, group.url)))) throw new ConfigError(`${settingAsSet(config, group.setting)}: ${problem}`);
  }
}

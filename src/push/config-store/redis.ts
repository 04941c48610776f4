import type { Redis } from 'ioredis';
import { redisScript } from '../../redis/connection.js';
import type { KeyRing } from '../secrets.js';
import { openRecord, sealRecord, type ConfigRecord } from './record.js';
import { byId, pageOf, prepareConfig, tooManyConfigs, type ConfigStoreOptions, type PushConfigStore, type StoredConfig } from './types.js';

export interface RedisConfigStoreOptions extends ConfigStoreOptions {
  keyRing: KeyRing;
  /** Owned by the caller: the store neither connects nor quits it. */
  redis: Redis;
  /** `redis-prefix`; the hash of a task is `<prefix>push:configs:<taskId>`. */
  prefix: string;
  /** Expire a task's configs this long after their last change (0 = never), e.g. the task idle TTL. */
  ttlMs?: number;
}

/** Every task's config hash is this prefix plus the task id (the registry expires them with their tasks). */
export const redisConfigKeyPrefix = (prefix: string): string => `${prefix}push:configs:`;

/** Stores a field unless that would put the hash past the cap; replacing an existing field is always allowed. */
const CREATE_CAPPED = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if tonumber(ARGV[4]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
`;

/**
 * One hash per task (`field = JSON [owner, id]`, value = the record with sealed secrets), so every
 * replica sees every config and a task's configs go away together.
 */
export function createRedisConfigStore(options: RedisConfigStoreOptions): PushConfigStore {
  const { redis, keyRing } = options;
  const hashKey = (taskId: string) => `${redisConfigKeyPrefix(options.prefix)}${taskId}`;
  const field = (owner: string, id: string) => JSON.stringify([owner, id]);
  const open = (raw: string) => openRecord(keyRing, JSON.parse(raw) as ConfigRecord);
  const createCapped = redisScript(redis, 'a2aBridgePushConfigCreate', 1, CREATE_CAPPED);

  async function all(taskId: string): Promise<StoredConfig[]> {
    const values = await redis.hvals(hashKey(taskId));
    return values.map(open).sort(byId);
  }

  return {
    async create(owner, taskId, input) {
      const config = prepareConfig(taskId, input, options);
      const record = sealRecord(keyRing, owner, config, Date.now());
      const stored = await createCapped(
        hashKey(taskId),
        field(owner, config.id),
        JSON.stringify(record),
        String(options.maxConfigsPerTask),
        String(options.ttlMs ?? 0),
      );
      if (stored !== 1) throw tooManyConfigs(options.maxConfigsPerTask);
      return openRecord(keyRing, record);
    },
    async get(owner, taskId, id) {
      const raw = await redis.hget(hashKey(taskId), field(owner, id));
      return raw === null ? undefined : open(raw);
    },
    async list(owner, taskId, listOptions) {
      const owned = (await all(taskId)).filter((entry) => entry.owner === owner);
      return pageOf(owned, listOptions);
    },
    async delete(owner, taskId, id) {
      return (await redis.hdel(hashKey(taskId), field(owner, id))) > 0;
    },
    forTask: all,
    async deleteTask(taskId) {
      await redis.del(hashKey(taskId));
    },
  };
}

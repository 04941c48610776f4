import { noteRedisError } from '../../observability/redis-errors.js';
import type { TaskAlias, TaskAliases } from './types.js';
import { connectRedis, type RedisTarget } from '../../redis-connection.js';

export interface RedisTaskAliasesOptions {
  url: RedisTarget;
  prefix: string;
  /** An alias expires with its task (0: after a year). */
  idleTtlMs: number;
}

/** Shared by every replica: a claim is one SET NX, so two replicas cannot give one id to two callers. */
export function createRedisTaskAliases(options: RedisTaskAliasesOptions): TaskAliases {
  const redis = connectRedis(options.url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  // Counted, not logged, like the registry's: without a listener ioredis prints every failed reconnect with its stack.
  redis.on('error', () => noteRedisError('task-aliases'));
  const aliasKey = (clientId: string) => `${options.prefix}task-alias:${clientId}`;
  const reverseKey = (upstreamId: string, owner: string) => `${options.prefix}task-alias-of:${owner.length}:${owner}:${upstreamId}`;
  // Without an idle TTL an alias lives as long as Redis keeps it; a year bounds what a lost task leaves behind.
  const ttlMs = options.idleTtlMs > 0 ? options.idleTtlMs : 365 * 24 * 3600_000;

  const parse = (raw: string | null): TaskAlias | undefined => {
    if (raw === null) return undefined;
    const value = JSON.parse(raw) as TaskAlias;
    return typeof value.owner === 'string' ? value : undefined;
  };

  return {
    async lookup(clientId) {
      const alias = parse(await redis.get(aliasKey(clientId)));
      // Used: it lives on as long as its task does.
      if (alias) void redis.pexpire(aliasKey(clientId), ttlMs).catch(() => undefined);
      return alias;
    },
    async claim(clientId, owner) {
      const set = await redis.set(aliasKey(clientId), JSON.stringify({ owner }), 'PX', ttlMs, 'NX');
      if (set === 'OK') return true;
      const held = parse(await redis.get(aliasKey(clientId)));
      return held?.owner === owner && held.upstream === undefined;
    },
    async bind(clientId, owner, upstreamId) {
      await redis
        .multi()
        .set(aliasKey(clientId), JSON.stringify({ owner, upstream: upstreamId }), 'PX', ttlMs)
        .set(reverseKey(upstreamId, owner), clientId, 'PX', ttlMs)
        .exec();
    },
    clientIdOf: async (upstreamId, owner) => (await redis.get(reverseKey(upstreamId, owner))) ?? undefined,
    async close() {
      redis.disconnect();
    },
  };
}

import { watchRedis, type RedisWatchLogger } from '../../observability/redis-errors.js';
import { parseStoredAlias, type StoredAlias } from './stored-alias.js';
import type { TaskAlias, TaskAliases } from './types.js';
import { closeRedis, connectRedis, requestPathRedis, type RedisTarget } from '../../redis/connection.js';
import { throttledWarnings } from '../../throttled-warnings.js';
import { outOfReachAsRefusal } from '../task-registry/write-refusals.js';

export interface RedisTaskAliasesOptions {
  url: RedisTarget;
  prefix: string;
  /** An alias expires with its task (0: after a year). */
  idleTtlMs: number;
  /** How long a command may take before it fails (`redis-command-timeout-ms`; absent or 0: no bound): a Redis that froze fails the call, not hangs it. */
  commandTimeoutMs?: number;
  /** Told when the connection fails (at most every 30 s) and when it is ready again (watchRedis). */
  logger?: RedisWatchLogger;
}

/** Shared by every replica: a claim is one SET NX, so two replicas cannot open two tasks under one caller's id. */
export function createRedisTaskAliases(options: RedisTaskAliasesOptions): TaskAliases {
  const redis = connectRedis(options.url, { lazyConnect: false, maxRetriesPerRequest: 2, ...requestPathRedis(options.commandTimeoutMs ?? 0) });
  // Counted, and logged at most every 30 s: without a listener ioredis prints every failed reconnect with its stack.
  watchRedis(redis, { store: 'task-aliases', logger: options.logger });
  const ownKey = (kind: string, id: string, owner: string) => `${options.prefix}${kind}:${owner.length}:${owner}:${id}`;
  const aliasKey = (clientId: string, owner: string) => ownKey('task-alias-own', clientId, owner);
  const reverseKey = (upstreamId: string, owner: string) => ownKey('task-alias-of', upstreamId, owner);
  /** Where an alias bound before ids were kept per owner lives: one key for every caller, its owner inside. */
  const sharedKey = (clientId: string) => `${options.prefix}task-alias:${clientId}`;
  // Without an idle TTL an alias lives as long as Redis keeps it; a year bounds what a lost task leaves behind.
  const ttlMs = options.idleTtlMs > 0 ? options.idleTtlMs : 365 * 24 * 3600_000;

  // A value the store never wrote is told by its key (the value may be anything), at most once a minute however many
  // keys or reads: the next line counts those left out (throttled-warnings.ts), and nothing is kept per key.
  const tellUnreadable = throttledWarnings(options.logger);
  /** The alias stored under `key`; an unreadable value is no alias (stored-alias.ts), rather than a Redis out of reach. */
  async function read(key: string): Promise<StoredAlias | undefined> {
    const raw = await redis.get(key);
    if (raw === null) return undefined;
    const alias = parseStoredAlias(raw);
    if (alias === undefined)
      tellUnreadable({ store: 'task-aliases', key }, 'A task alias in Redis holds a value the gateway did not write: read as no alias');
    return alias;
  }

  /** The owner's alias in the one shared key of before: a conversation that spans an upgrade goes on in its task. */
  async function sharedAlias(clientId: string, owner: string): Promise<TaskAlias | undefined> {
    const shared = await read(sharedKey(clientId));
    return shared?.owner === owner && shared.upstream !== undefined ? { upstream: shared.upstream } : undefined;
  }

  const aliases: TaskAliases = {
    async lookup(clientId, owner) {
      const key = aliasKey(clientId, owner);
      const alias = await read(key);
      if (!alias) return sharedAlias(clientId, owner);
      // Used: it lives on as long as its task does.
      void redis.pexpire(key, ttlMs).catch(() => undefined);
      return alias.upstream !== undefined ? { upstream: alias.upstream } : {};
    },
    async claim(clientId, owner) {
      const set = await redis.set(aliasKey(clientId, owner), JSON.stringify({}), 'PX', ttlMs, 'NX');
      if (set === 'OK') return true;
      // Pending, or unreadable (no alias): the caller's id opens a task, whose binding writes the key anew.
      const held = await read(aliasKey(clientId, owner));
      return held?.upstream === undefined;
    },
    async bind(clientId, owner, upstreamId) {
      await redis
        .multi()
        .set(aliasKey(clientId, owner), JSON.stringify({ upstream: upstreamId }), 'PX', ttlMs)
        .set(reverseKey(upstreamId, owner), clientId, 'PX', ttlMs)
        .exec();
    },
    clientIdOf: async (upstreamId, owner) => (await redis.get(reverseKey(upstreamId, owner))) ?? undefined,
    async close() {
      await closeRedis(redis);
    },
  };
  // Every call of a facade method that names a task reads here first: a Redis gone is the registry's refusal for
  // now (503, Retry-After), as a task read is (write-refusals.ts), what Redis said kept for the log.
  const refusedWhileGone =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      call(...args).catch((error: unknown) => {
        throw outOfReachAsRefusal(error);
      });
  return {
    lookup: refusedWhileGone(aliases.lookup),
    claim: refusedWhileGone(aliases.claim),
    bind: refusedWhileGone(aliases.bind),
    clientIdOf: refusedWhileGone(aliases.clientIdOf),
    close: aliases.close,
  };
}

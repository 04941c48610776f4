import type { EventEmitter } from 'node:events';
import type { RedisOptions } from 'ioredis';
import { URL_USER_INFO } from '../url-credentials.js';
import { throttledWarnings, type WarningLogger } from '../throttled-warnings.js';

/**
 * Redis connection errors counted per component, process-wide: the connections are opened deep in
 * the stores and queues, which only need to report here; the metrics read the counts at scrape time.
 */
const counts = new Map<string, number>();

export type RedisComponent =
  'task-registry' | 'context-lanes' | 'turn-slots' | 'task-aliases' | 'conversation-languages' | 'push-configs' | 'push-queue';

export function noteRedisError(component: RedisComponent): void {
  counts.set(component, (counts.get(component) ?? 0) + 1);
}

export const redisErrorCounts = (): ReadonlyMap<string, number> => counts;

/** A store's connection failing (refused, not resolved, timed out, credentials refused) is logged at most this often. */
export const REDIS_WARN_EVERY_MS = 30_000;

/** Where a store's failures are told: a warning (throttled) when its connection fails, info when it is ready again. */
export interface RedisWatchLogger extends WarningLogger {
  info?(fields: object, message: string): void;
}

/** What watchRedis reads of a client: its events, and the options ioredis read from the URL (ioredis's `Redis`). */
export interface WatchedRedis extends Pick<EventEmitter, 'on'> {
  readonly options?: Pick<RedisOptions, 'host' | 'port' | 'path' | 'sentinels' | 'name' | 'password' | 'sentinelPassword'>;
}

export interface WatchRedisOptions {
  store: RedisComponent;
  logger?: RedisWatchLogger | undefined;
  /** Default REDIS_WARN_EVERY_MS; and the clock, for tests. */
  everyMs?: number;
  now?: () => number;
}

/**
 * Where `redis` connects, without its credentials: `host:port`, a socket's path, or a Sentinel master
 * with the sentinels asked for it. Read from the client's options (ioredis took the URL apart), so a
 * password in the URL never gets here.
 */
export function redisEndpointText(redis: WatchedRedis): string {
  const options = redis.options ?? {};
  if (options.sentinels && options.sentinels.length > 0) {
    const sentinels = options.sentinels.map((sentinel) => `${sentinel.host ?? 'localhost'}:${sentinel.port ?? 26379}`).join(',');
    return `sentinel master ${options.name ?? 'mymaster'} (sentinels ${sentinels})`;
  }
  if (options.path) return options.path;
  const host = options.host ?? 'localhost';
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${options.port ?? 6379}`;
}

/** `message` without URL credentials, nor any of `secrets` wherever they appear in it. */
function scrubbed(message: string, secrets: readonly string[]): string {
  let text = message.replace(URL_USER_INFO, '$1[redacted]@');
  for (const secret of secrets) if (secret.length > 0) text = text.split(secret).join('[redacted]');
  return text;
}

/** What is logged of a connection error: its message (scrubbed) and its code (ECONNREFUSED, ENOTFOUND...). Never its `command`: a refused AUTH carries the password. */
function describeError(error: unknown, secrets: readonly string[]): { error: string; code?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return { error: scrubbed(message.slice(0, 500), secrets), ...(typeof code === 'string' ? { code } : {}) };
}

/**
 * Watches the Redis connection(s) of one store: every 'error' is counted (a2a_bridge_redis_errors_total),
 * and told at warn at most once per `everyMs` (the ones in between counted in the next line's `leftOut`),
 * naming the store, where it connects (no credentials) and the error (scrubbed); once a connection is ready
 * again after a failure that was told, that is told at info. Without a listener ioredis would print every
 * failed reconnect with its stack. Returns a function that watches another connection of the same store
 * (a duplicate) under the same throttle.
 */
export function watchRedis(redis: WatchedRedis, options: WatchRedisOptions): (another: WatchedRedis) => void {
  const { store, logger } = options;
  let failing = false;
  const warn = throttledWarnings(
    logger
      ? {
          warn: (fields, message) => {
            failing = true;
            logger.warn(fields, message);
          },
        }
      : undefined,
    options.everyMs ?? REDIS_WARN_EVERY_MS,
    options.now,
  );
  const watch = (connection: WatchedRedis): void => {
    const endpoint = redisEndpointText(connection);
    const secrets = [connection.options?.password, connection.options?.sentinelPassword].filter((secret): secret is string => !!secret);
    connection.on('error', (error: unknown) => {
      noteRedisError(store);
      const described = describeError(error, secrets);
      warn({ store, redis: endpoint, ...described }, `Redis connection of the ${store} store failed (${endpoint}): ${described.error}`);
    });
    connection.on('ready', () => {
      if (!failing) return;
      failing = false;
      logger?.info?.({ store, redis: endpoint }, `Redis connection of the ${store} store is ready again (${endpoint})`);
    });
  };
  watch(redis);
  return watch;
}

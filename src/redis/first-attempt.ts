import type { Redis } from 'ioredis';

/** ioredis connection states after a connection was lost (not the first one still being made). */
export const LOST: ReadonlySet<string> = new Set(['reconnecting', 'close', 'end']);

/** ioredis's states while its first connection is being made (`wait`, a lazy connection, makes none by itself). */
const FIRST_BEING_MADE: ReadonlySet<string> = new Set(['connecting', 'connect']);

/** ioredis's bound on making a connection when none is configured. */
const IOREDIS_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Settles once the first connection of `redis` is ready or has failed (at once if that is already so),
 * and after its connect timeout at the latest (Sentinel retries the sentinels without a word). A gateway
 * that listened before this would answer its first `/ready` with 503 and a warning about a Redis that is
 * fine, only because the connection had not been made yet; one that is truly out of reach is still told
 * (its first attempt failed: the Redis warnings and `/ready` say so).
 */
export function firstAttemptSettled(redis: Redis): Promise<void> {
  if (!FIRST_BEING_MADE.has(redis.status)) return Promise.resolve();
  return new Promise((resolve) => {
    const settle = (): void => {
      clearTimeout(timer);
      for (const event of ['ready', 'close', 'end']) redis.off(event, settle);
      resolve();
    };
    const timer = setTimeout(settle, redis.options.connectTimeout ?? IOREDIS_CONNECT_TIMEOUT_MS);
    timer.unref();
    for (const event of ['ready', 'close', 'end']) redis.on(event, settle);
  });
}

import type { Redis } from 'ioredis';
import { redisClient } from './connection.js';
import type { RedisEndpoint } from './tls.js';

/** How long each step (connecting, the ready check, the question) may take. */
const ASK_WITHIN_MS = 2_000;

/**
 * Asks the Redis at `endpoint` one thing over a connection of its own that gives up at once, so that a
 * check at start never holds the start; `watch` is given the connection before it connects. A refused connection rejects with what the server said
 * (ioredis reports WRONGPASS or NOAUTH as an event and rejects `connect()` with "Connection is closed").
 */
export async function askRedisOnce<T>(endpoint: RedisEndpoint, ask: (redis: Redis) => Promise<T>, watch?: (redis: Redis) => void): Promise<T> {
  const redis = redisClient(endpoint, {
    lazyConnect: true,
    connectTimeout: ASK_WITHIN_MS,
    // A server that takes the connection and never answers (a blackholed port, a frozen Redis) would hold
    // the ready check and the question for ever.
    commandTimeout: ASK_WITHIN_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    // Through Sentinel: sentinels that do not answer are asked again forever by default, holding the start.
    sentinelRetryStrategy: () => null,
  });
  // Before it connects: what the connection's handshake says (PASSWORD_NOT_NEEDED_EVENT) comes before the question.
  watch?.(redis);
  let said: Error | undefined;
  redis.on('error', (error: Error) => {
    said ??= error;
  });
  let timer: NodeJS.Timeout | undefined;
  // The steps' own bounds add up (a ready check that times out is tried again): the whole ask has one too.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ASK_WITHIN_MS * 2} ms`)), ASK_WITHIN_MS * 2);
  });
  try {
    return await Promise.race([redis.connect().then(() => ask(redis)), late]);
  } catch (error) {
    throw said ?? error;
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}

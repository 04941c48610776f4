import type { Redis } from 'ioredis';
import { redisClient } from './redis-connection.js';
import type { RedisEndpoint } from './redis-tls.js';

/**
 * Asks the Redis at `endpoint` one thing over a connection of its own that gives up at once, so that a
 * check at start never holds the start. A refused connection rejects with what the server said
 * (ioredis reports WRONGPASS or NOAUTH as an event and rejects `connect()` with "Connection is closed").
 */
export async function askRedisOnce<T>(endpoint: RedisEndpoint, ask: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = redisClient(endpoint, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    // Through Sentinel: sentinels that do not answer are asked again forever by default, holding the start.
    sentinelRetryStrategy: () => null,
  });
  let said: Error | undefined;
  redis.on('error', (error: Error) => {
    said ??= error;
  });
  try {
    await redis.connect();
    return await ask(redis);
  } catch (error) {
    throw said ?? error;
  } finally {
    redis.disconnect();
  }
}

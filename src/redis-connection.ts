import { Redis, type RedisOptions } from 'ioredis';
import { withFields } from './model/with-fields.js';
import { isSentinelUrl, sentinelOptions } from './redis-url.js';

/** ioredis: drop the connection, reconnect and send the refused command again. */
const RECONNECT_AND_RESEND = 2;

/**
 * A client of the Redis at `url`: a plain URL is read by ioredis itself, a Sentinel URL
 * (`redis+sentinel://`, see redis-url.ts) becomes ioredis's Sentinel options. What the URL says wins
 * over `options`, as it does in ioredis.
 */
export function redisClient(url: string, options: RedisOptions = {}): Redis {
  return isSentinelUrl(url) ? new Redis(withFields(options, sentinelOptions(url))) : new Redis(url, options);
}

/**
 * A connection to the gateway's Redis. After a failover the old primary turns replica and refuses
 * writes with READONLY on the connections it still holds, while the address (a DNS name, a proxy, a
 * virtual IP) already leads to the new primary: such a refusal reconnects and sends the command again,
 * instead of failing every write until the connection happens to drop. Through Sentinel the reconnect
 * asks the sentinels for the primary again.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return redisClient(url, {
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? RECONNECT_AND_RESEND : false),
    // Sentinel turns a reachable old primary into a replica only some seconds (about 10) after it
    // promoted the new one, and until then the old one takes the writes of every connection it still
    // holds: writes that are dropped when it resyncs from the new primary. The failover detector
    // listens for +switch-master on the sentinels and reconnects at once.
    ...(isSentinelUrl(url) ? { failoverDetector: true } : {}),
    ...options,
  });
}

import { Redis, type RedisOptions } from 'ioredis';
import { withFields } from './model/with-fields.js';
import type { RedisEndpoint } from './redis-tls.js';
import { isSentinelUrl, sentinelOptions } from './redis-url.js';

/** ioredis: drop the connection, reconnect and send the refused command again. */
const RECONNECT_AND_RESEND = 2;

/** A bare URL (ioredis's own TLS defaults), or one with the TLS options of `redis-tls` (redisEndpoint). */
export type RedisTarget = string | RedisEndpoint;

const endpointOf = (target: RedisTarget): RedisEndpoint => (typeof target === 'string' ? { url: target, tls: {} } : target);

/**
 * A client of the Redis at `target`: a plain URL is read by ioredis itself, a Sentinel URL
 * (`redis+sentinel://`, see redis-url.ts) becomes ioredis's Sentinel options. What the URL says wins
 * over `options`, as it does in ioredis; the endpoint's TLS options fill in the TLS the URL turned on.
 */
export function redisClient(target: RedisTarget, options: RedisOptions = {}): Redis {
  const { url, tls } = endpointOf(target);
  return isSentinelUrl(url) ? new Redis(withFields(withFields(options, sentinelOptions(url)), tls)) : new Redis(url, withFields(options, tls));
}

/**
 * A connection to the gateway's Redis. After a failover the old primary turns replica and refuses
 * writes with READONLY on the connections it still holds, while the address (a DNS name, a proxy, a
 * virtual IP) already leads to the new primary: such a refusal reconnects and sends the command again,
 * instead of failing every write until the connection happens to drop. Through Sentinel the reconnect
 * asks the sentinels for the primary again.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  return redisClient(target, {
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? RECONNECT_AND_RESEND : false),
    // Sentinel turns a reachable old primary into a replica only some seconds (about 10) after it
    // promoted the new one, and until then the old one takes the writes of every connection it still
    // holds: writes that are dropped when it resyncs from the new primary. The failover detector
    // listens for +switch-master on the sentinels and reconnects at once.
    ...(isSentinelUrl(endpointOf(target).url) ? { failoverDetector: true } : {}),
    ...options,
  });
}

/**
 * Options of a connection that callers' requests wait on (the task registry, the context lanes): a command
 * fails within `commandTimeoutMs` (0: no bound), so that a Redis that froze makes a call fail rather than
 * hang. Reconnections keep ioredis's retries: a stream's writes must outlive a short restart or failover
 * (new turns are refused meanwhile, core/admission.ts).
 */
export const requestPathRedis = (commandTimeoutMs: number): RedisOptions => (commandTimeoutMs > 0 ? { commandTimeout: commandTimeoutMs } : {});

/**
 * A Lua script as a command of `redis`, sent by its digest once Redis knows it (EVAL would send the whole
 * script on every call). Its first `keys` arguments are key names; with `'counted'` the first argument is
 * the number of key names that follow it, for a script whose keys vary from call to call.
 */
export function redisScript(
  redis: Redis,
  name: string,
  keys: number | 'counted',
  lua: string,
): (...keysThenArgs: Array<string | number>) => Promise<unknown> {
  redis.defineCommand(name, keys === 'counted' ? { lua } : { numberOfKeys: keys, lua });
  const command = (redis as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>)[name]!;
  return (...keysThenArgs) => command.apply(redis, keysThenArgs);
}

/**
 * Ends `connection`: after the commands it has sent are answered when it is up, at once when it is not
 * (a QUIT sent while it reconnects would wait in the offline queue for a Redis that may not come back).
 */
export async function closeRedis(connection: Redis): Promise<void> {
  if (connection.status === 'ready') await connection.quit().catch(() => connection.disconnect());
  else connection.disconnect();
}

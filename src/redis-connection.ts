import { Redis, type RedisOptions } from 'ioredis';

/** ioredis: drop the connection, reconnect and send the refused command again. */
const RECONNECT_AND_RESEND = 2;

/**
 * A connection to the gateway's Redis. After a failover the old primary turns replica and refuses
 * writes with READONLY on the connections it still holds, while the address (a DNS name, a proxy, a
 * virtual IP) already leads to the new primary: such a refusal reconnects and sends the command again,
 * instead of failing every write until the connection happens to drop.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? RECONNECT_AND_RESEND : false),
    ...options,
  });
}

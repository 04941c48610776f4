/**
 * What every Redis connection of the gateway is made from: its URL and the TLS options `redis-tls`
 * gives it. The URL's scheme says whether TLS is used (`rediss://`, `rediss+sentinel://`); `redis-tls`
 * says with which CA, client certificate and server name, and whether the sentinels use it too.
 */
import type { ConnectionOptions } from 'node:tls';
import type { RedisOptions } from 'ioredis';
import type { GatewayConfig } from '../config/schema.js';
import { withFields } from '../model/with-fields.js';
import { isSentinelUrl, isTlsUrl } from './url.js';
import { readClientTlsFiles } from '../http/tls.js';

export type RedisTlsOptions = Pick<RedisOptions, 'tls' | 'sentinelTLS'>;

export interface RedisEndpoint {
  url: string;
  /** Laid over what the URL says (redis/connection.ts); empty for a plain URL. */
  tls: RedisTlsOptions;
}

/** ioredis's TLS options for `url`: `connection` for the data nodes of a TLS URL, and for its sentinels with `sentinels`. */
export function redisTlsOptions(url: string, connection: ConnectionOptions, sentinels: boolean): RedisTlsOptions {
  if (!isTlsUrl(url)) return {};
  return sentinels && isSentinelUrl(url) ? { tls: connection, sentinelTLS: connection } : { tls: connection };
}

/**
 * The endpoint of `url` (default `redis-url`) under the config's `redis-tls`. Its files are read once,
 * by the first connection made at start: one that cannot be read stops the start, naming its key.
 */
export function redisEndpoint(config: Pick<GatewayConfig, 'redis-tls' | 'redis-url'>, url = config['redis-url']): RedisEndpoint {
  const settings = config['redis-tls'];
  const serverName = settings['server-name'];
  const connection = withFields(readClientTlsFiles('redis-tls', settings), serverName ? { servername: serverName } : {});
  return { url, tls: redisTlsOptions(url, connection, settings.sentinels) };
}

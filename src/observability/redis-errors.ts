import type { EventEmitter } from 'node:events';
import type { Command, RedisOptions } from 'ioredis';
import { URL_USER_INFO } from '../url-credentials.js';
import { throttledWarnings, type WarningLogger } from '../throttled-warnings.js';
import { answeringProbe, askWhenReadyIsProbed, readyDependsOn, type PingedRedis } from './redis-answering.js';
import { commandFailureKind, watchCommands, type RedisErrorKind } from './redis-command-failures.js';

export type { RedisErrorKind };

/**
 * Redis errors counted per component and kind, process-wide: the connections are opened deep in the
 * stores and queues, which only need to report here; the metrics read the counts at scrape time.
 */
const counts = new Map<string, { component: string; kind: RedisErrorKind; count: number }>();

export type RedisComponent =
  'task-registry' | 'context-lanes' | 'turn-slots' | 'task-aliases' | 'conversation-languages' | 'push-configs' | 'push-queue';

const REDIS_ERROR_KINDS: readonly RedisErrorKind[] = ['connection', 'timeout', 'unavailable'];

function seriesOf(component: RedisComponent, kind: RedisErrorKind): { count: number } {
  const key = `${component} ${kind}`;
  let counted = counts.get(key);
  if (!counted) counts.set(key, (counted = { component, kind, count: 0 }));
  return counted;
}

export function noteRedisError(component: RedisComponent, kind: RedisErrorKind = 'connection'): void {
  seriesOf(component, kind).count++;
}

/**
 * A component's series, every kind, at 0 from the moment its Redis is configured: a counter that has no series
 * until its first error reads as no data to `rate()` and `increase()`, and as absent to `absent()`, so an alert
 * on it could not tell "no error yet" from "not scraped".
 */
export function zeroRedisErrors(component: RedisComponent): void {
  for (const kind of REDIS_ERROR_KINDS) seriesOf(component, kind);
}

/** Every component and kind counted so far, with its count. */
export const redisErrorSeries = (): Iterable<{ component: string; kind: RedisErrorKind; count: number }> => counts.values();

/** The errors counted per component (of `kind`, or of every kind). */
export function redisErrorCounts(kind?: RedisErrorKind): ReadonlyMap<string, number> {
  const totals = new Map<string, number>();
  for (const counted of counts.values()) {
    if (kind === undefined || counted.kind === kind) totals.set(counted.component, (totals.get(counted.component) ?? 0) + counted.count);
  }
  return totals;
}

/** A store's connection failing (refused, not resolved, timed out, credentials refused) is logged at most this often. */
export const REDIS_WARN_EVERY_MS = 30_000;

/** Where a store's failures are told: a warning (throttled) when its connection fails, info when it is ready again. */
export interface RedisWatchLogger extends WarningLogger {
  info?(fields: object, message: string): void;
}

/**
 * What watchRedis reads of a client (ioredis's `Redis`): its events, the options ioredis read from the URL,
 * and, on a real connection, its commands (sendCommand) and status (for the PING of `/ready`).
 */
export interface WatchedRedis extends Pick<EventEmitter, 'on'> {
  readonly options?: Pick<RedisOptions, 'host' | 'port' | 'path' | 'sentinels' | 'name' | 'password' | 'sentinelPassword' | 'commandTimeout'>;
  sendCommand?(command: Command, stream?: never): unknown;
  readonly status?: string;
  once?(event: 'end', listener: () => void): unknown;
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

/** What is told of a command's failure: "no answer within <commandTimeout> ms" for a timeout, else Redis's reply. */
function describeCommandFailure(kind: RedisErrorKind, error: unknown, withinMs: number | undefined, secrets: readonly string[]): { error: string } {
  if (kind === 'timeout') return { error: withinMs ? `no answer within ${withinMs} ms` : 'no answer in time' };
  return { error: describeError(error, secrets).error };
}

const isWithCommands = (connection: WatchedRedis): connection is WatchedRedis & PingedRedis =>
  typeof connection.sendCommand === 'function' && typeof connection.once === 'function';

/**
 * Watches the Redis connection(s) of one store, and tells each failure at warn at most once per `everyMs`
 * (the ones in between counted in the next line's `leftOut`), naming the store, where it connects (no
 * credentials), the kind and the error (scrubbed). Counted (a2a_bridge_redis_errors_total, by kind, every
 * kind at 0 from the moment the store is watched): every 'error' of the connection (`connection`), and every
 * command that got no answer within its bound (`timeout`: a Redis that froze keeps its connections open and
 * says nothing) or that Redis refused for now (`unavailable`: LOADING, BUSY, …). Once a connection is ready again after a failure that was told,
 * or a command is answered after a timeout that was told, that is told at info. The connections of the
 * stores calls depend on are PINGed in the background when `/ready` is probed (redis-answering.ts). Without a listener
 * ioredis would print every failed reconnect with its stack. Returns a function that watches another
 * connection of the same store (a duplicate) under the same throttle.
 */
export function watchRedis(redis: WatchedRedis, options: WatchRedisOptions): (another: WatchedRedis) => void {
  const { store, logger } = options;
  zeroRedisErrors(store);
  let failing: 'connection' | 'commands' | undefined;
  let toldKind: RedisErrorKind = 'connection';
  const warn = throttledWarnings(
    logger
      ? {
          warn: (fields, message) => {
            failing = toldKind === 'connection' ? 'connection' : 'commands';
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
    const tell = (kind: RedisErrorKind, described: { error: string; code?: string }): void => {
      noteRedisError(store, kind);
      toldKind = kind;
      warn({ store, redis: endpoint, kind, ...described }, `Redis connection of the ${store} store failed (${endpoint}): ${described.error}`);
    };
    const toldAgain = (message: string): void => {
      failing = undefined;
      logger?.info?.({ store, redis: endpoint }, `Redis connection of the ${store} store ${message} (${endpoint})`);
    };
    connection.on('error', (error: unknown) => tell('connection', describeError(error, secrets)));
    connection.on('ready', () => {
      if (failing) toldAgain('is ready again');
    });
    if (!isWithCommands(connection)) return;
    const probe = readyDependsOn(store)
      ? answeringProbe(connection, (_ping, withinMs) => tell('timeout', { error: `no answer to PING within ${withinMs} ms` }))
      : undefined;
    watchCommands(connection, {
      answered: () => {
        if (failing === 'commands') toldAgain('answers again');
      },
      failed: (error, command) => {
        const kind = commandFailureKind(error);
        if (!kind || probe?.toldLate(command)) return;
        tell(kind, describeCommandFailure(kind, error, connection.options?.commandTimeout, secrets));
      },
    });
    if (probe) askWhenReadyIsProbed(connection, store, probe);
  };
  watch(redis);
  return watch;
}

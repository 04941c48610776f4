import { Redis, type Command, type RedisOptions } from 'ioredis';
import { withFields } from '../model/with-fields.js';
import type { RedisEndpoint } from './tls.js';
import { isSentinelUrl, sentinelOptions } from './url.js';

/** ioredis: drop the connection, reconnect and send the refused command again. */
const RECONNECT_AND_RESEND = 2;

/** A bare URL (ioredis's own TLS defaults), or one with the TLS options of `redis-tls` (redisEndpoint). */
export type RedisTarget = string | RedisEndpoint;

const endpointOf = (target: RedisTarget): RedisEndpoint => (typeof target === 'string' ? { url: target, tls: {} } : target);

/**
 * A client of the Redis at `target`: a plain URL is read by ioredis itself, a Sentinel URL
 * (`redis+sentinel://`, see redis/url.ts) becomes ioredis's Sentinel options. What the URL says wins
 * over `options`, as it does in ioredis; the endpoint's TLS options fill in the TLS the URL turned on.
 */
export function redisClient(target: RedisTarget, options: RedisOptions = {}): Redis {
  const { url, tls } = endpointOf(target);
  return quietAboutUnneededPassword(
    isSentinelUrl(url) ? new Redis(withFields(withFields(options, sentinelOptions(url)), tls)) : new Redis(url, withFields(options, tls)),
  );
}

/**
 * What Redis answers the AUTH of a password it does not ask for: "no password is set" (before 6), "AUTH
 * <password> called without any password configured for the default user" (6 and later).
 */
const PASSWORD_NOT_NEEDED = /no password is set|without any password configured for the default user/;

/** The event a client of redisClient emits when its Redis said it asks for no password (on each connection). */
export const PASSWORD_NOT_NEEDED_EVENT = 'passwordNotNeeded';

/**
 * A client that takes Redis's "no password is set" answer to its AUTH for what it is, a connection that
 * needs none, and says so by PASSWORD_NOT_NEEDED_EVENT. ioredis goes on after that answer as after an OK,
 * but prints a `[WARN]` line with console.warn on every connection: outside the gateway's log, naming no
 * setting. The start tells it once, in the log (redis/credentials-check.ts). Only ioredis calls `auth`.
 */
function quietAboutUnneededPassword(redis: Redis): Redis {
  const auth = redis.auth.bind(redis) as (...args: unknown[]) => Promise<unknown>;
  (redis as unknown as { auth: (...args: unknown[]) => Promise<unknown> }).auth = (...args) => {
    const callback = typeof args.at(-1) === 'function' ? (args.pop() as (error: Error | null, answer?: unknown) => void) : undefined;
    const answered = auth(...args).catch((error: unknown) => {
      if (!(error instanceof Error) || !PASSWORD_NOT_NEEDED.test(error.message)) throw error;
      redis.emit(PASSWORD_NOT_NEEDED_EVENT);
      return 'OK';
    });
    if (callback)
      answered.then(
        (answer) => callback(null, answer),
        (error: Error) => callback(error),
      );
    return answered;
  };
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (override) => quietAboutUnneededPassword(duplicate(override));
  return redis;
}

/**
 * A connection to the gateway's Redis. After a failover the old primary turns replica and refuses
 * writes with READONLY on the connections it still holds, while the address (a DNS name, a proxy, a
 * virtual IP) already leads to the new primary: such a refusal reconnects and sends the command again,
 * instead of failing every write until the connection happens to drop. Through Sentinel the reconnect
 * asks the sentinels for the primary again.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  return failingWhileCredentialsRefused(
    redisClient(target, {
      reconnectOnError: (error) => (error.message.startsWith('READONLY') ? RECONNECT_AND_RESEND : false),
      // Sentinel turns a reachable old primary into a replica only some seconds (about 10) after it
      // promoted the new one, and until then the old one takes the writes of every connection it still
      // holds: writes that are dropped when it resyncs from the new primary. The failover detector
      // listens for +switch-master on the sentinels and reconnects at once.
      ...(isSentinelUrl(endpointOf(target).url) ? { failoverDetector: true } : {}),
      ...options,
    }),
  );
}

/**
 * What Redis answers a connection whose credentials it does not take: WRONGPASS (a password or user it
 * refuses, a disabled user), NOAUTH (none offered to a Redis that wants one; ioredis reports it as
 * "Ready check failed: NOAUTH ..."), "ERR invalid password" (Redis before 6).
 */
export function isCredentialsRefusal(error: unknown): boolean {
  return error instanceof Error && /\bWRONGPASS\b|\bNOAUTH\b|\bERR invalid password\b/.test(error.message);
}

/**
 * A connection that fails its commands while Redis refuses its credentials (a password rotated under a
 * running gateway), instead of keeping them until Redis takes the credentials again, which may be never.
 * ioredis reconnects over and over (each TCP connect succeeds, each AUTH is refused) and on each refusal
 * rejects the commands waiting offline, but not those that were sent on the connection that dropped:
 * it keeps them to send again once a connection is ready (see failQueued), and its `maxRetriesPerRequest`
 * never reaches them either, since each attempt does connect. So each refusal fails those too; and until
 * a connection is ready again, a command is failed at once rather than waiting for the next attempt
 * (up to 2 s apart), so that a caller gets its error now and a stop does not wait attempt after
 * attempt. A Redis that restarts or fails over without refusing the credentials is ridden out as before.
 *
 * The caller's commands are failed with an error of the refusal's message only: ioredis's error carries
 * the refused AUTH command, password included. Duplicates (`duplicate()`) fail theirs the same way. The
 * 'error' listener added here does not log: callers keep their own (ioredis prints an error only when
 * nothing listens). Not for MONITOR: ioredis replaces sendCommand on a connection in monitor mode.
 */
function failingWhileCredentialsRefused(redis: Redis): Redis {
  let refused: { error: Error; on: Redis['stream'] } | undefined;
  redis.on('error', (error: unknown) => {
    if (!isCredentialsRefusal(error)) return;
    refused = { error: new Error((error as Error).message), on: redis.stream };
    failQueued(redis, refused.error);
  });
  redis.on('ready', () => (refused = undefined));
  const failsAtOnce = (command: Command): boolean => {
    // QUIT goes on: ioredis ends a connection that is not up at once when nothing waits offline.
    if (!refused || command.name === 'quit') return false;
    const { status } = redis;
    if (status === 'reconnecting' || status === 'connecting' || status === 'close') return true;
    // The connection that was refused, until it closes. On the next one the handshake (AUTH itself)
    // must go out; the other commands wait offline and ioredis fails them if the AUTH is refused again.
    return status === 'connect' && redis.stream === refused.on;
  };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    if (!failsAtOnce(command)) return send(command, stream);
    command.reject(refused!.error);
    return command.promise;
  };
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (override) => failingWhileCredentialsRefused(duplicate(override));
  return redis;
}

/** One command ioredis keeps until it is answered (its `CommandItem`). */
interface QueuedCommand {
  command: Pick<Command, 'reject'>;
}

/** What failQueued reads of ioredis (5.11) that its types do not show. */
interface QueueInternals {
  /** Rejects the offline queue and the current connection's queue (private in ioredis's types). */
  flushQueue?: (error: Error) => void;
  /** The commands sent on a connection that dropped while ready, sent again on the next ready one. */
  prevCommandQueue?: { shift(): QueuedCommand | undefined } | null;
}

/**
 * Rejects with `error` every command `redis` still holds: those waiting offline, those sent on the
 * current connection, and those sent on a connection that dropped. ioredis has no public way to do this
 * and its own flushQueue forgets the last ones once a new connection was opened: they wait for a ready
 * connection, and ioredis leaves them pending even after disconnect(). Both members are private to ioredis
 * (5.11): test/redis/credentials-refused.test.ts ("the ioredis internals failQueued relies on") fails if
 * an upgrade renames them, as do the tests of failing while the credentials are refused.
 */
export function failQueued(redis: Redis, error: Error): void {
  const internals = redis as unknown as QueueInternals;
  if (typeof internals.flushQueue === 'function') internals.flushQueue.call(redis, error);
  const previous = internals.prevCommandQueue;
  if (!previous) return;
  internals.prevCommandQueue = null;
  for (let item = previous.shift(); item; item = previous.shift()) item.command.reject(error);
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
 * Ends `connection`: after the commands it has sent are answered when it is up (for up to `quitWithinMs`:
 * a Redis that froze never answers), at once when it is not (a QUIT sent while it reconnects would wait in
 * the offline queue for a Redis that may not come back). Whatever it still holds then fails: ioredis's
 * disconnect() while it reconnects leaves its commands pending forever.
 */
export async function closeRedis(connection: Redis, quitWithinMs = 2_000): Promise<void> {
  if (connection.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, quitWithinMs)));
    await Promise.race([connection.quit().catch(() => undefined), waited]);
    clearTimeout(timer);
  }
  if (connection.status !== 'end') connection.disconnect();
  failQueued(connection, new Error(CONNECTION_CLOSED));
}

/** ioredis's message for a command of a connection that was ended. */
const CONNECTION_CLOSED = 'Connection is closed.';

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { settlesWithin } from '../settles-within.js';
import { watchRedis, type RedisWatchLogger } from '../observability/redis-errors.js';
import type { ContextLanes, Lease, RecordedState } from './context-lanes.js';
import { missedRenewalMs, readRunning, renewEveryMs, renewRetrying, runningPart, turnOver, type NamedTurn } from './dead-holders.js';
import { closeRedis, connectRedis, redisScript, requestPathRedis, type RedisTarget } from '../redis/connection.js';
import { throttledWarnings } from '../throttled-warnings.js';

export interface RedisContextLanesOptions {
  /** A shared client (not closed by close()); or `url` to let the lanes own one. */
  redis?: Redis;
  url?: RedisTarget;
  /** How long a command of its own connection may take before it fails (`redis-command-timeout-ms`; absent or 0: no bound). */
  commandTimeoutMs?: number;
  /** Key prefix, e.g. 'a2a-bridge:'; a lane is `<prefix>lane:<encoded key>`. */
  prefix: string;
  /** How long a lease outlives its last renewal: the lanes of a crashed replica free themselves after this. */
  leaseMs: number;
  /** Told of leases that could not be renewed, of the connection failing and of it being ready again. */
  logger?: RedisWatchLogger;
}

/*
 * A lane holds `<token>|<paused task>` while its turn is paused, `<token>||<task>` while it runs on a task
 * it named (`runsTask`), `<token>|||<task>` when only a finished state ends that turn (`onlyFinishedEnds`),
 * `<token>|` before. Replicas of before read what follows the first `|` as the paused task: `|<task>` is no
 * task id of theirs, so nothing rides along into a running turn there either (and they read `||<task>` as
 * running on a task `|<task>`, which no registry knows: they wait for the lease). A running task whose id
 * starts with `|` reads as `onlyFinishedEnds` on another id, so its lane too waits for its lease.
 * Scripts act only while the value still starts with the caller's `<token>|` (tokens are UUIDs, so the
 * prefix is exact): a replica whose lease expired never renews, rebinds or deletes the lease another
 * replica took since.
 */
const OWNED = `local v = redis.call('GET', KEYS[1])
local owned = v and string.sub(v, 1, #ARGV[1]) == ARGV[1]
`;
const RENEW_SCRIPT = `${OWNED}if owned then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const BIND_SCRIPT = `${OWNED}if owned then redis.call('SET', KEYS[1], ARGV[1] .. ARGV[3], 'PX', ARGV[2]) return 1 end
return 0`;
const RELEASE_SCRIPT = `${OWNED}if owned then return redis.call('DEL', KEYS[1]) end
return 0`;
/*
 * Replaces a lane only while it still holds the very value the taker judged ended (of two takers, one wins),
 * and only once its holder has missed a renewal (its lease has less left than a renewal would leave, ARGV[4]):
 * a live holder keeps its lane even when the registry records its task finished early (another replica that
 * does not see its stream recorded it lost, a cancel recorded before its stream ended).
 */
const TAKE_OVER_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end
return 0`;
/*
 * Marks a lane whose holder stops (close()) and that names a task as a holder that missed a renewal does (less
 * than ARGV[2] left): so another replica takes it over as soon as the registry records its turn over, and no
 * longer reads a paused one as live, instead of waiting a renewal's interval more for a holder that will never
 * renew. A lane that names no task cannot be judged by the registry: it keeps its lease, as before.
 */
const STOPPED_SCRIPT = `${OWNED}if owned and #v > #ARGV[1] and redis.call('PTTL', KEYS[1]) > tonumber(ARGV[2]) then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
/** A lane's value while its holder still renews it (it has not missed a renewal, ARGV[1]); else nothing. */
const LIVE_HOLDER_SCRIPT = `local v = redis.call('GET', KEYS[1])
if v and redis.call('PTTL', KEYS[1]) >= tonumber(ARGV[1]) then return v end
return false`;

/**
 * How often a message waiting for another replica to let a turn go (letGo) reads its lane again: the release is
 * read at most this late. Only a message that comes while a turn runs on its context reads it again: up to a hundred
 * reads of one key over the 0.2.5 facade's LET_GO_ELSEWHERE_MS, for a message then refused.
 */
const LET_GO_POLL_MS = 10;

/** How long close() waits for Redis to mark the leases it stops holding. */
const STOPPED_WITHIN_MS = 2_000;

/** What a lane's value says of its turn: the task it names, paused on it or running. */
type LaneHolder = (NamedTurn & { paused: boolean }) | undefined;

function laneHolder(value: string): LaneHolder {
  const named = value.slice(value.indexOf('|') + 1);
  if (!named.startsWith('|')) return named ? { taskId: named, paused: true } : undefined;
  const running = readRunning(named.slice(1));
  return running && { paused: false, ...running };
}

/** The part of a lane's value after `<token>|`: the paused task, else `|` and the running one, else nothing. */
const namedPart = (paused: string | undefined, running: NamedTurn | undefined): string => paused ?? (running ? `|${runningPart(running)}` : '');

/**
 * Lanes shared by every replica through one Redis. Acquiring is a single `SET NX PX` round trip;
 * while the turn runs a timer renews the lease every third of its lifetime, so only a replica that
 * died (or froze for a whole lease) loses its lanes, and they come free `leaseMs` later.
 */
export function createRedisContextLanes(options: RedisContextLanesOptions): ContextLanes {
  const ownsClient = !options.redis;
  const redis = options.redis ?? connectRedis(options.url ?? 'redis://127.0.0.1:6379', requestPathRedis(options.commandTimeoutMs ?? 0));
  watchRedis(redis, { store: 'context-lanes', logger: options.logger });
  const renewScript = redisScript(redis, 'a2aBridgeLaneRenew', 1, RENEW_SCRIPT);
  const bindScript = redisScript(redis, 'a2aBridgeLaneBind', 1, BIND_SCRIPT);
  const releaseScript = redisScript(redis, 'a2aBridgeLaneRelease', 1, RELEASE_SCRIPT);
  const takeOverScript = redisScript(redis, 'a2aBridgeLaneTakeOver', 1, TAKE_OVER_SCRIPT);
  const liveHolderScript = redisScript(redis, 'a2aBridgeLaneLiveHolder', 1, LIVE_HOLDER_SCRIPT);
  const stoppedScript = redisScript(redis, 'a2aBridgeLaneStopped', 1, STOPPED_SCRIPT);

  const leaseMs = String(options.leaseMs);
  const renewEvery = renewEveryMs(options.leaseMs);
  const missedRenewal = String(missedRenewalMs(options.leaseMs));
  const laneKey = (key: string) => `${options.prefix}lane:${encodeURIComponent(key)}`;
  /** The leases this process holds, with their renewal timers: stopped (and marked so) by close(). */
  const held = new Map<NodeJS.Timeout, { key: string; redisKey: string; owner: string }>();
  let closed = false;
  /** Whether commands may still be sent: not on a connection close() ended (a shared one lives on). */
  const connected = () => !closed || !ownsClient;
  // While Redis is down every lane's renewal fails every few seconds: a line a minute, with the count left out.
  const throttled = throttledWarnings(options.logger);
  const warn = (error: unknown, key: string, message: string) => throttled({ err: error, lane: key }, message);

  function holdLease(key: string, token: string, taskId: string | undefined): Lease {
    const redisKey = laneKey(key);
    const owner = `${token}|`;
    let running: NamedTurn | undefined;
    let releasing: Promise<void> | undefined;

    const timer = setInterval(() => {
      renewRetrying(
        () => renewScript(redisKey, owner, leaseMs),
        options.leaseMs,
        () => held.has(timer),
      ).then(
        (renewed) => {
          if (renewed === undefined || Number(renewed) === 1) return;
          // Expired (this process stalled for a whole lease) or Redis lost it: another turn may own the lane now.
          stopRenewing();
          warn(undefined, key, 'context lane lease was lost while its turn ran');
        },
        (error: unknown) => warn(error, key, 'context lane lease could not be renewed'),
      );
    }, renewEvery);
    timer.unref();
    held.set(timer, { key, redisKey, owner });
    function stopRenewing(): void {
      clearInterval(timer);
      held.delete(timer);
    }
    function record(): void {
      if (!connected()) return;
      // Not awaited: commands on one connection run in order, so a later release still comes after it.
      bindScript(redisKey, owner, leaseMs, namedPart(lease.taskId, running)).catch((error: unknown) =>
        warn(error, key, 'context lane task could not be recorded'),
      );
    }

    // The task a plain field, not a getter: an object literal with an accessor is a dictionary-mode object
    // (470 bytes, held by every open stream's turn; docs/performance.md).
    const lease = {
      key,
      taskId,
      bindTask(id: string | undefined) {
        if (lease.taskId === id || releasing) return;
        lease.taskId = id;
        running = undefined;
        record();
      },
      runsTask(id: string, options?: { onlyFinishedEnds?: boolean }) {
        const named: NamedTurn = { taskId: id, onlyFinishedEnds: options?.onlyFinishedEnds === true };
        if (lease.taskId !== undefined || releasing || (running && runningPart(running) === runningPart(named))) return;
        running = named;
        record();
      },
      release() {
        releasing ??= (async () => {
          stopRenewing();
          // A turn that ends after close(): its lane was marked stopped there, and comes free as a dead holder's does.
          if (!connected()) return;
          // On failure the lease simply expires.
          await releaseScript(redisKey, owner).catch((error: unknown) => warn(error, key, 'context lane could not be released'));
        })();
        return releasing;
      },
    };
    return lease;
  }

  /**
   * Takes a held lane whose turn the registry records over (turnOver) and whose holder missed a renewal: it died
   * without releasing the lane (a live one releases it itself). So a dead holder's lane comes free a renewal's
   * interval and a little after its last renewal, not a whole lease after it. A paused turn's lane too: the
   * stream an answer would ride along into died with its holder (holderTask no longer names it).
   */
  async function tookOverEnded(redisKey: string, value: string, recordedState: RecordedState): Promise<boolean> {
    const held = await redis.get(redisKey);
    // Released since: taken as any free lane is.
    if (held === null) return (await redis.set(redisKey, value, 'PX', options.leaseMs, 'NX')) === 'OK';
    const holder = laneHolder(held);
    if (!holder || !turnOver(holder, await recordedState(holder.taskId))) return false;
    return Number(await takeOverScript(redisKey, held, value, leaseMs, missedRenewal)) === 1;
  }

  return {
    async tryAcquire(key, taskId, recordedState) {
      const token = randomUUID();
      const value = `${token}|${namedPart(taskId, undefined)}`;
      const acquired = await redis.set(laneKey(key), value, 'PX', options.leaseMs, 'NX');
      if (acquired === 'OK' || (recordedState && (await tookOverEnded(laneKey(key), value, recordedState)))) {
        return holdLease(key, token, taskId);
      }
      return undefined;
    },

    async holderTask(key) {
      const value = (await liveHolderScript(laneKey(key), missedRenewal)) as string | null;
      const holder = value === null ? undefined : laneHolder(value);
      return holder?.paused ? holder.taskId : undefined;
    },

    /*
     * Polled, not told: a release would have to publish to every replica on every turn's end, and each replica keep
     * a subscription, for the rare message that comes while another replica lets its turn go. A lane no turn runs
     * on costs its one read; a wait ends at its bound, a Redis failure ends it at once (the turn's own acquisition
     * then says what is wrong), and so does a read not answered within the time left: a frozen Redis answers
     * only at the command's own time-out (seconds), which the message would otherwise wait for. A read not answered
     * in time after one that found the turn running ends it as `held`: the turn is not known to have let go.
     */
    async letGo(key, withinMs) {
      const deadline = Date.now() + withinMs;
      let seenRunning = false;
      for (;;) {
        const read = liveHolderScript(laneKey(key), missedRenewal).then(
          (held) => held as string | null,
          () => undefined,
        );
        if (!(await settlesWithin(read, deadline - Date.now()))) return seenRunning ? 'held' : 'free';
        const value = await read;
        if (value === undefined) return 'free';
        const runs = value !== null && laneHolder(value)?.paused !== true;
        if (!runs) return seenRunning ? 'let-go' : 'free';
        seenRunning = true;
        const left = deadline - Date.now();
        if (left <= 0) return 'held';
        await sleep(Math.min(LET_GO_POLL_MS, left));
      }
    },

    /*
     * Leases still held are not released: their turns may still run at the agent (a shutdown cut the stream, not
     * the agent's turn), and keep their lanes. Nor left as a live holder's: one that names its task is marked as a
     * dead holder's, so it comes free to another replica once the registry records its turn over (tookOverEnded),
     * not up to a renewal's interval later, and a paused turn's is no longer read as live (holderTask, letGo). A
     * turn still running keeps its lane until its lease runs out, as a crashed replica's does.
     */
    async close() {
      closed = true;
      const stopped = [...held.values()];
      for (const timer of held.keys()) clearInterval(timer);
      held.clear();
      const stoppedLeft = String(Number(missedRenewal) - 1);
      const marked = Promise.all(
        stopped.map(({ key, redisKey, owner }) =>
          stoppedScript(redisKey, owner, stoppedLeft).catch((error: unknown) => warn(error, key, 'context lane could not be marked stopped')),
        ),
      );
      // As long as a quit may take (closeRedis): a Redis that does not answer leaves the leases to expire.
      await settlesWithin(marked, STOPPED_WITHIN_MS);
      if (ownsClient) await closeRedis(redis);
    },
  };
}

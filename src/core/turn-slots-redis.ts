import { randomUUID } from 'node:crypto';
import type { LimitsConfig } from '../config/limits-schema.js';
import { A2AError } from '../model/index.js';
import { watchRedis, type RedisWatchLogger } from '../observability/redis-errors.js';
import { settlesWithin } from '../settles-within.js';
import { closeRedis, connectRedis, redisScript, type RedisTarget } from '../redis/connection.js';
import { throttledWarnings } from '../throttled-warnings.js';
import type { CallContext } from './agent-port.js';
import type { RecordedState } from './context-lanes.js';
import { missedRenewalMs, readRunning, renewEveryMs, renewRetrying, runningPart, turnOver, type NamedTurn } from './dead-holders.js';
import { capsOf, clientKey, holdSlot, UNCOUNTED, type TurnSlot, type TurnSlots } from './turn-limits.js';

export interface RedisTurnSlotsOptions {
  url: RedisTarget;
  /** Key prefix, e.g. 'a2a-bridge:'; a client's slots are `<prefix>turns:<encoded client>`. */
  prefix: string;
  /** How long a slot outlives its last renewal: the slots of a crashed replica free themselves after this. */
  leaseMs: number;
  /** How long a turn waits for Redis to count it (and a renewal or release for Redis's answer); past it the turn is refused. */
  answerWithinMs: number;
  /** Told of Redis failing the slots, at most once a minute; of the connection failing (every 30 s at most) and being ready again. */
  logger?: RedisWatchLogger;
}

/*
 * A client's slots are one sorted set: a member per held slot (a UUID), scored by the time its lease
 * runs out on Redis's own clock, so replicas whose clocks differ still agree on what has expired. Every
 * script first drops the expired members: that is how a crashed replica's slots come free.
 */
const NOW = `local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
`;
// The set lives as long as its longest lease, so a client that stops calling leaves nothing behind.
const HOLD = `redis.call('ZADD', KEYS[1], now + ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;
/** Count and add in one script: two replicas can never both take the last slot. */
const TAKE_SCRIPT = `${NOW}if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
${HOLD}`;
/** Only a member still there is renewed: a lease that expired meanwhile may have let another turn in. */
const RENEW_SCRIPT = `${NOW}if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
${HOLD}`;
const COUNT_SCRIPT = `${NOW}return redis.call('ZCARD', KEYS[1])`;
/*
 * A member is `<UUID>`, or `<UUID>|<task>` once its turn names its task (dead-holders.ts, runningPart): renamed
 * in place, its lease kept. Replicas of before only count members and remove their own.
 */
const RENAME_SCRIPT = `${NOW}local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], score, ARGV[2])
return 1`;
/** Members that name a task and whose holder missed a renewal (less than ARGV[1] left of their lease). */
const MISSED_SCRIPT = `${NOW}local missed = {}
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now + tonumber(ARGV[1])))) do
  if string.find(member, '|', 1, true) then missed[#missed + 1] = member end
end
return missed`;
/** Replaces a dead holder's member (ARGV[1]) by a new one (ARGV[2], leased ARGV[3]) while it is still there unrenewed (ARGV[4]): of two takers, one wins. */
const TAKE_OVER_SCRIPT = `${NOW}local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) >= now + tonumber(ARGV[4]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], now + ARGV[3], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

/*
 * Marks a slot whose holder stops (close()) as a holder that missed a renewal does (its lease runs out within
 * ARGV[2]): taken over at the cap as soon as the registry records its turn over, as a dead holder's is. Only
 * members that name a task: another cannot be judged by the registry, and keeps its lease as before.
 */
const STOPPED_SCRIPT = `${NOW}local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) <= now + tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
return 1`;

/** How long close() waits for Redis to mark the slots it stops holding. */
const STOPPED_WITHIN_MS = 2_000;

/** One held slot in Redis. */
interface Lease {
  key: string;
  /** Its member: `id`, then `id|<task>` once named. */
  member: string;
  readonly id: string;
  /** Its member names a paused turn's task (bindTask): only then does a bindTask(undefined) clear the name. */
  paused?: boolean;
  freed?: true;
}

/** The turn a member names, if any. */
function memberTurn(member: string): NamedTurn | undefined {
  const bar = member.indexOf('|');
  return bar === -1 ? undefined : readRunning(member.slice(bar + 1));
}

/** What a turn gets when Redis cannot count it: said so an end user (a Bailian user) can read it too. */
const uncountable = (): A2AError => A2AError.internal('The gateway cannot take new requests right now. Please try again in a moment.');

/**
 * The turn slots of every replica using one Redis and prefix: a client's cap holds across replicas.
 * Taking a slot is one script (drop expired, count, add below the cap); while the turn runs, a timer
 * renews the leases this replica holds every third of their lifetime, so only a replica that died (or
 * froze for a whole lease) loses its slots, and they come free `leaseMs` later.
 *
 * When Redis does not answer within `answerWithinMs` (or fails), the turn is refused (-32603), not let
 * in uncounted: with `store: redis` the turn's context lane and task record need the same Redis and fail
 * the turn too, and letting turns in uncounted would drop every client's cap exactly while the replicas
 * cannot see each other's turns. A slot whose release fails, or whose renewals keep failing, expires on its own.
 */
export function createRedisTurnSlots(limits: LimitsConfig, options: RedisTurnSlotsOptions): TurnSlots | undefined {
  const capOf = capsOf(limits);
  if (!capOf) return undefined;
  const redis = connectRedis(options.url, { commandTimeout: options.answerWithinMs });
  watchRedis(redis, { store: 'turn-slots', logger: options.logger });
  const takeScript = redisScript(redis, 'a2aBridgeTurnTake', 1, TAKE_SCRIPT);
  const renewScript = redisScript(redis, 'a2aBridgeTurnRenew', 1, RENEW_SCRIPT);
  const countScript = redisScript(redis, 'a2aBridgeTurnCount', 1, COUNT_SCRIPT);
  const renameScript = redisScript(redis, 'a2aBridgeTurnRename', 1, RENAME_SCRIPT);
  const missedScript = redisScript(redis, 'a2aBridgeTurnMissed', 1, MISSED_SCRIPT);
  const takeOverScript = redisScript(redis, 'a2aBridgeTurnTakeOver', 1, TAKE_OVER_SCRIPT);
  const stoppedScript = redisScript(redis, 'a2aBridgeTurnStopped', 1, STOPPED_SCRIPT);
  const warn = throttledWarnings(options.logger);
  const leaseMs = String(options.leaseMs);
  const slotsKey = (ctx: Pick<CallContext, 'principal' | 'client'>) => `${options.prefix}turns:${encodeURIComponent(clientKey(ctx))}`;

  /** The leases this replica holds, renewed together by one timer that runs only while there are any. */
  const held = new Set<Lease>();
  let renewing: NodeJS.Timeout | undefined;
  /** close() ended the connection: a turn that ends after it leaves its slot as close() marked it. */
  let closed = false;
  const missedRenewal = missedRenewalMs(options.leaseMs);

  function renewAll(): void {
    for (const lease of held) {
      // Its member read at each attempt: a rename meanwhile (its turn named its task) is what Redis holds.
      renewRetrying(
        () => renewScript(lease.key, lease.member, leaseMs),
        options.leaseMs,
        () => held.has(lease),
      ).then(
        (renewed) => {
          if (renewed === undefined || Number(renewed) === 1) return;
          // This process stalled for a whole lease, or Redis lost the set: the client may have had another turn since.
          forget(lease);
          warn({}, 'a turn slot lease was lost while its turn ran: its client may have had one turn more than its cap');
        },
        (error: unknown) => warn({ err: error }, 'turn slot leases could not be renewed in Redis; they expire unless a later renewal succeeds'),
      );
    }
  }
  function remember(lease: Lease): void {
    held.add(lease);
    renewing ??= setInterval(renewAll, renewEveryMs(options.leaseMs)).unref();
  }
  function forget(lease: Lease): void {
    held.delete(lease);
    if (held.size > 0 || !renewing) return;
    clearInterval(renewing);
    renewing = undefined;
  }
  function free(lease: Lease): void {
    lease.freed = true;
    forget(lease);
    if (closed) return;
    redis.zrem(lease.key, lease.member).catch((error: unknown) => warn({ err: error }, 'a turn slot could not be given back in Redis; it expires'));
  }

  /** Names the lease's turn (undefined: none): its member renamed, on this connection, so renewals and the release after it find it. */
  function name(lease: Lease, turn: NamedTurn | undefined): void {
    const member = turn ? `${lease.id}|${runningPart(turn)}` : lease.id;
    if (lease.freed || closed || member === lease.member) return;
    const before = lease.member;
    lease.member = member;
    renameScript(lease.key, before, member).catch((error: unknown) => warn({ err: error }, 'a turn slot could not name its task in Redis'));
  }

  /**
   * At the cap: takes the place of a slot whose holder missed a renewal and whose turn the registry records over
   * (dead-holders.ts), so a client whose turn ran on a replica that died is not refused for the rest of its lease.
   */
  async function tookOverDead(lease: Lease, recordedState: RecordedState): Promise<boolean> {
    const missed = (await missedScript(lease.key, missedRenewal)) as string[];
    for (const member of missed) {
      const turn = memberTurn(member);
      if (!turn || !turnOver(turn, await recordedState(turn.taskId))) continue;
      if (Number(await takeOverScript(lease.key, member, lease.member, leaseMs, missedRenewal)) === 1) return true;
    }
    return false;
  }

  async function takeLease(ctx: CallContext, cap: number, recordedState: RecordedState | undefined): Promise<TurnSlot | undefined> {
    const id = randomUUID();
    const lease: Lease = { key: slotsKey(ctx), member: id, id };
    let taken: unknown;
    try {
      taken = await takeScript(lease.key, lease.member, leaseMs, cap);
    } catch (error) {
      // The script may still run once Redis answers: the removal queued behind it undoes it, else it expires.
      free(lease);
      warn({ err: error }, 'Redis did not count a turn in time: turns of capped clients are refused until it does');
      throw uncountable();
    }
    if (Number(taken) !== 1) {
      const tookOver = recordedState && (await tookOverDead(lease, recordedState).catch(() => false));
      if (!tookOver) return undefined;
    }
    remember(lease);
    const slot = holdSlot(ctx, lease, free);
    return {
      release: slot.release,
      // A slot counts its turn whether paused or running: either names the task, whose recorded end frees it.
      names: {
        bindTask(taskId) {
          // As a lane (context-lanes.ts, Lease): a turn going on clears a paused name, never the running one
          // (a stream's every working update says it goes on: the slot would stop naming its task).
          if (taskId === undefined && !lease.paused) return;
          lease.paused = taskId !== undefined;
          name(lease, taskId === undefined ? undefined : { taskId });
        },
        runsTask(taskId, named) {
          lease.paused = false;
          name(lease, { taskId, onlyFinishedEnds: named?.onlyFinishedEnds === true });
        },
      },
    };
  }

  return {
    capOf,
    take(ctx, recordedState) {
      const cap = capOf(ctx);
      return cap === 0 ? UNCOUNTED : takeLease(ctx, cap, recordedState);
    },
    inFlight: async (ctx) => Number(await countScript(slotsKey(ctx))),
    /*
     * Slots still held are not given back: their turns may still run at the agent. Those that name their task are
     * marked as a dead holder's (less left than a renewal leaves), so one whose turn the registry records over is
     * taken over at once (tookOverDead), not up to a renewal's interval later.
     */
    async close() {
      closed = true;
      if (renewing) clearInterval(renewing);
      renewing = undefined;
      const stopped = [...held].filter((lease) => memberTurn(lease.member) !== undefined);
      held.clear();
      const stoppedLeft = String(missedRenewal - 1);
      const marked = Promise.all(
        stopped.map((lease) =>
          stoppedScript(lease.key, lease.member, stoppedLeft).catch((error: unknown) =>
            warn({ err: error }, 'a turn slot could not be marked stopped in Redis; it expires'),
          ),
        ),
      );
      // As long as a quit may take (closeRedis): a Redis that does not answer leaves the slots to expire.
      await settlesWithin(marked, STOPPED_WITHIN_MS);
      await closeRedis(redis);
    },
  };
}

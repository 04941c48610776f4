import type { ChainableCommander, Redis } from 'ioredis';
import type { FollowEntry, FollowJournal } from './follow-journal.js';
import { redisScript } from '../redis/connection.js';
import { defaultConsumerName } from './queue/redis-streams-options.js';
import type { PushLogger } from './queue/types.js';
import { throttledWarnings } from '../throttled-warnings.js';

export interface RedisFollowJournalOptions {
  /** Owned by the caller: the journal neither connects nor quits it. */
  redis: Redis;
  /** `redis-prefix`; see `redisFollowKeys` for the keys under it. */
  prefix: string;
  /** `push-follow-lease-ms`: how long this replica's follows stay its own after its last renewal. */
  leaseMs: number;
  /** This replica; default `<hostname>-<pid>-<random>`, new in every process. */
  replicaId?: string;
  logger: PushLogger;
}

export interface RedisFollowJournal extends FollowJournal {
  readonly replicaId: string;
  readonly claimEveryMs: number;
  claimOrphans(limit: number): Promise<FollowEntry[]>;
  held(): Promise<Set<string>>;
  /** Stops renewing and deletes the lease: the follows kept are another replica's to claim at once. */
  close(): Promise<void>;
}

/**
 * The keys of the follow journal: a set of the replicas that hold follows, per replica a hash of its
 * follows (field: task id, value: the FollowEntry as JSON) and its lease (a key with a TTL).
 */
export const redisFollowKeys = (prefix: string) => ({
  owners: `${prefix}push:follow-owners`,
  follows: (replicaId: string) => `${prefix}push:follows:${replicaId}`,
  lease: (replicaId: string) => `${prefix}push:follow-lease:${replicaId}`,
});

/** Sets the lease; answers whether it still existed (0: it had lapsed, and another replica may have claimed its follows). */
const RENEW = `
local had = redis.call('EXISTS', KEYS[1])
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
return had
`;

/**
 * Moves at most ARGV[4] follows of a replica whose lease is gone (KEYS[1]) from its hash (KEYS[2])
 * into the claimer's (KEYS[3]), in one script: of two replicas claiming at once, the second finds them
 * moved. Follows past their `until` (ARGV[3], now: expired) or without one that reads (damaged) are dropped, each
 * counted apart. The claimer renews its own lease (KEYS[5]) first, so what it took is not an orphan itself. Answers
 * {expired, damaged, {json...}}. KEYS[4]: the owners set; ARGV[1]: the old replica, ARGV[2]: the claimer, ARGV[5]:
 * the lease in ms.
 */
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 0, {}} end
redis.call('SET', KEYS[5], '1', 'PX', ARGV[5])
local now, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local all = redis.call('HGETALL', KEYS[2])
local claimed, expired, damaged = {}, 0, 0
for i = 1, #all, 2 do
  local ok, entry = pcall(cjson.decode, all[i + 1])
  local untilMs = ok and type(entry) == 'table' and entry['until'] or nil
  if type(untilMs) ~= 'number' then
    redis.call('HDEL', KEYS[2], all[i])
    damaged = damaged + 1
  elseif untilMs <= now then
    redis.call('HDEL', KEYS[2], all[i])
    expired = expired + 1
  elseif #claimed < limit then
    redis.call('HDEL', KEYS[2], all[i])
    redis.call('HSET', KEYS[3], all[i], all[i + 1])
    claimed[#claimed + 1] = all[i + 1]
  end
end
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('SREM', KEYS[4], ARGV[1]) end
if #claimed > 0 then redis.call('SADD', KEYS[4], ARGV[2]) end
return {expired, damaged, claimed}
`;

/** EXEC reports a failing command in its reply instead of rejecting. */
async function execAll(transaction: ChainableCommander): Promise<void> {
  const replies = await transaction.exec();
  const failed = replies?.find(([error]) => error);
  if (!replies || failed) throw failed?.[0] ?? new Error('Redis transaction aborted');
}

function entryOf(raw: string): FollowEntry | undefined {
  try {
    const entry = JSON.parse(raw) as Partial<FollowEntry>;
    const valid =
      typeof entry.taskId === 'string' &&
      typeof entry.principal === 'string' &&
      typeof entry.until === 'number' &&
      (entry.tenant === undefined || typeof entry.tenant === 'string');
    return valid ? (entry as FollowEntry) : undefined;
  } catch {
    return undefined;
  }
}

/** Fisher–Yates: replicas claiming at once start on different dead replicas. */
function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/**
 * The follows of every replica in one Redis (`store: redis`). Each replica keeps its follows under its
 * own id and holds a lease it renews every third of `leaseMs`. A replica that dies stops renewing; one
 * that stops gracefully deletes its lease and keeps its follows (as the file journal keeps a follow cut
 * short by a stop). Either way its follows become orphans, and a live replica claims them
 * (`claimOrphans`, at start and every `claimEveryMs`) and follows them as it follows a resumed one.
 */
export function createRedisFollowJournal(options: RedisFollowJournalOptions): RedisFollowJournal {
  const { redis, logger, leaseMs } = options;
  const replicaId = options.replicaId ?? defaultConsumerName();
  const keys = redisFollowKeys(options.prefix);
  const ownLease = keys.lease(replicaId);
  const ownFollows = keys.follows(replicaId);
  const everyMs = Math.max(1, Math.floor(leaseMs / 3));
  const renewScript = redisScript(redis, 'a2aBridgeFollowRenew', 1, RENEW);
  const claimScript = redisScript(redis, 'a2aBridgeFollowClaim', 5, CLAIM);
  let renewed = false;
  let closed: Promise<void> | undefined;
  /**
   * A claim that failed without its answer (a command timed out while Redis stalled) may still have run once
   * Redis went on, moving follows into this replica's hash that nobody here follows: the next claim hands back
   * this replica's own follows too (the follower starts those it does not run yet).
   */
  let claimUnanswered = false;
  // A Redis that froze fails every renewal (a third of the lease): told once a minute, the rest counted, as the
  // other stores' lease renewals are; the push-configs connection's own warning names the Redis and the error.
  const renewalFailed = throttledWarnings(logger);
  const damagedFound = throttledWarnings(logger);

  /**
   * The follows `values` hold. One that does not read as a follow (not the JSON the gateway writes: edited by hand, or
   * by another version) is a turn whose end is not pushed: told, with how many, as the file journal tells each.
   */
  const readable = (values: string[]): FollowEntry[] => {
    const entries: FollowEntry[] = [];
    for (const value of values) {
      const entry = entryOf(value);
      if (entry) entries.push(entry);
    }
    const damaged = values.length - entries.length;
    if (damaged > 0) damagedFound({ replicaId, damaged }, 'A2A push follows could not be restored: their entries in Redis are damaged');
    return entries;
  };

  const liveEntries = async (): Promise<FollowEntry[]> => {
    const now = Date.now();
    return readable(await redis.hvals(ownFollows)).filter((entry) => entry.until > now);
  };

  async function renew(): Promise<void> {
    try {
      const had = await renewScript(ownLease, String(leaseMs));
      if (had === 0 && renewed) {
        logger.warn(
          { replicaId, leaseMs },
          "push follow lease had lapsed: another replica may have taken over this replica's follows (both follow them; a turn's end is pushed once only if the agent stamps its statuses)",
        );
      }
      renewed = true;
    } catch (error) {
      renewalFailed({ err: error, replicaId }, 'push follow lease could not be renewed');
    }
  }

  void renew();
  const timer = setInterval(() => void renew(), everyMs);
  timer.unref();

  return {
    replicaId,
    claimEveryMs: everyMs,

    async add(entry) {
      // The lease goes with the entry, so a follow is never in Redis without a live owner.
      await execAll(
        redis.multi().set(ownLease, '1', 'PX', leaseMs).hset(ownFollows, entry.taskId, JSON.stringify(entry)).sadd(keys.owners, replicaId),
      );
    },

    async remove(taskId) {
      await redis.hdel(ownFollows, taskId);
    },

    async entries() {
      // With a new id per process this is empty; a replica given its old id takes up its own follows.
      return readable(await redis.hvals(ownFollows));
    },

    held: async () => new Set(await redis.hkeys(ownFollows)),

    async claimOrphans(limit) {
      if (limit <= 0 || closed) return [];
      // The script tells a live replica (it answers at once) from one that is gone: no check here could be as fresh.
      const others = (await redis.smembers(keys.owners)).filter((owner) => owner !== replicaId);
      const claimed: FollowEntry[] = claimUnanswered ? await liveEntries() : [];
      claimUnanswered = false;
      for (const owner of shuffled(others)) {
        if (claimed.length >= limit || closed) break;
        const [expired, damagedThere, values] = (await claimScript(
          keys.lease(owner),
          keys.follows(owner),
          ownFollows,
          keys.owners,
          ownLease,
          owner,
          replicaId,
          String(Date.now()),
          String(limit - claimed.length),
          String(leaseMs),
        ).catch((error: unknown) => {
          claimUnanswered = true;
          throw error;
        })) as [number, number, string[]];
        const entries = readable(values);
        // Expired follows are load (a replica gone longer than their bound); damaged ones a bug or an edit: at warn.
        const damaged = damagedThere + values.length - entries.length;
        if (entries.length > 0 || expired > 0 || damaged > 0) {
          logger[damaged > 0 ? 'warn' : 'info'](
            { replicaId, from: owner, claimed: entries.length, expired, damaged },
            'push follows of a replica that is gone were taken over',
          );
        }
        claimed.push(...entries);
      }
      return claimed;
    },

    close() {
      closed ??= (async () => {
        clearInterval(timer);
        await redis.del(ownLease).catch((error: unknown) => logger.warn({ err: error, replicaId }, 'push follow lease could not be released'));
      })();
      return closed;
    },
  };
}

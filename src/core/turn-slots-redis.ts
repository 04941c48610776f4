import { randomUUID } from 'node:crypto';
import type { LimitsConfig } from '../config/limits-schema.js';
import { A2AError } from '../model/index.js';
import { watchRedis, type RedisWatchLogger } from '../observability/redis-errors.js';
import { closeRedis, connectRedis, redisScript, type RedisTarget } from '../redis-connection.js';
import { throttledWarnings } from '../throttled-warnings.js';
import type { CallContext } from './agent-port.js';
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

/** One held slot in Redis. */
interface Lease {
  key: string;
  member: string;
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
  const warn = throttledWarnings(options.logger);
  const leaseMs = String(options.leaseMs);
  const slotsKey = (ctx: Pick<CallContext, 'principal' | 'client'>) => `${options.prefix}turns:${encodeURIComponent(clientKey(ctx))}`;

  /** The leases this replica holds, renewed together by one timer that runs only while there are any. */
  const held = new Set<Lease>();
  let renewing: NodeJS.Timeout | undefined;
  const renewEveryMs = Math.max(1, Math.floor(options.leaseMs / 3));

  function renewAll(): void {
    for (const lease of held) {
      renewScript(lease.key, lease.member, leaseMs).then(
        (renewed) => {
          if (Number(renewed) === 1) return;
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
    renewing ??= setInterval(renewAll, renewEveryMs).unref();
  }
  function forget(lease: Lease): void {
    held.delete(lease);
    if (held.size > 0 || !renewing) return;
    clearInterval(renewing);
    renewing = undefined;
  }
  function free(lease: Lease): void {
    forget(lease);
    redis.zrem(lease.key, lease.member).catch((error: unknown) => warn({ err: error }, 'a turn slot could not be given back in Redis; it expires'));
  }

  async function takeLease(ctx: CallContext, cap: number): Promise<TurnSlot | undefined> {
    const lease: Lease = { key: slotsKey(ctx), member: randomUUID() };
    let taken: unknown;
    try {
      taken = await takeScript(lease.key, lease.member, leaseMs, cap);
    } catch (error) {
      // The script may still run once Redis answers: the removal queued behind it undoes it, else it expires.
      free(lease);
      warn({ err: error }, 'Redis did not count a turn in time: turns of capped clients are refused until it does');
      throw uncountable();
    }
    if (Number(taken) !== 1) return undefined;
    remember(lease);
    return holdSlot(ctx, lease, free);
  }

  return {
    capOf,
    take(ctx) {
      const cap = capOf(ctx);
      return cap === 0 ? UNCOUNTED : takeLease(ctx, cap);
    },
    inFlight: async (ctx) => Number(await countScript(slotsKey(ctx))),
    async close() {
      // Slots still held expire on their own: their turns may still run upstream.
      if (renewing) clearInterval(renewing);
      renewing = undefined;
      held.clear();
      await closeRedis(redis);
    },
  };
}

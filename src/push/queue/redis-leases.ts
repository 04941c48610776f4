import type { Redis } from 'ioredis';
import type { PushLogger } from './types.js';
import { redisScript } from '../../redis/connection.js';

export interface EntryLeasesOptions {
  commands: Redis;
  stream: string;
  group: string;
  consumer: string;
  /** `push-lease-timeout-ms`: an entry idle this long in a consumer's pending list is taken over by another. */
  leaseTimeoutMs: number;
  logger: PushLogger;
}

/** Entries renewed in one script call: a replica can hold thousands (ids only, see redis-streams.ts). */
const RENEW_BATCH = 500;

/**
 * Resets the idle time of each entry still pending under this consumer (ARGV[2]) and returns the ids that
 * are not: another replica took them over (or they were finished). A plain `XCLAIM … 0` would move the
 * entry back from whoever holds it now, and both replicas would deliver it. JUSTID leaves the delivery
 * count alone. KEYS[1] stream; ARGV[1] group; ARGV[3..] ids.
 */
const RENEW_IF_OURS = `
local lost = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  if #redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1, ARGV[2]) == 1 then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'JUSTID')
  else
    lost[#lost + 1] = id
  end
end
return lost
`;

/**
 * Marks each entry still pending under this consumer (ARGV[2]) idle for ARGV[3] ms, so any worker's next
 * XAUTOCLAIM takes it, and puts its delivery count back by the one this consumer's taking added. Entries
 * another replica took over are left alone. KEYS[1] stream; ARGV[1] group; ARGV[4..] ids.
 */
const LET_GO_IF_OURS = `
for i = 4, #ARGV do
  local id = ARGV[i]
  local row = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1, ARGV[2])[1]
  if row then
    local count = math.max(0, tonumber(row[4]) - 1)
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'IDLE', ARGV[3], 'RETRYCOUNT', count, 'JUSTID')
  end
end
return 0
`;

/**
 * The stream entries one worker fetched and has not finished, and their leases. An entry read or claimed
 * is pending under this consumer; its lease is its idle time there. Every held entry is renewed while
 * held, waiting behind its webhook's delivery or in flight: an entry that waited can start its delivery
 * at any age, so its lease must not run out during it. Only a worker that stops renewing (a crashed or
 * frozen process) lets its entries be taken over; once taken over they are no longer renewed here (the
 * worker checks ownership again when a waiting entry's turn comes, see redis-outcomes.ts).
 */
export interface EntryLeases {
  /** Notes an entry just read or claimed (its lease starts now). */
  taken(id: string): void;
  /** Forgets an entry whose outcome is recorded. */
  finished(id: string): void;
  /** Whether this worker holds the entry (waiting or in flight) and has not found it taken over. */
  holds(id: string): boolean;
  /**
   * Renews the leases of the held entries not renewed for `olderThanMs` and still pending under this
   * consumer; the others (taken over by another replica) are forgotten and returned.
   */
  renew(olderThanMs: number): Promise<string[]>;
  /**
   * Gives entries up without attempting them (at stop): any worker's next XAUTOCLAIM (this replica
   * restarted included) takes them at once. Their delivery count is put back to what it was before this
   * worker took them, so an entry handed around without ever being attempted is not dead-lettered as one
   * that keeps killing its workers. Entries another replica took over meanwhile are left to it.
   */
  letGo(ids: string[]): Promise<void>;
}

export function entryLeases(options: EntryLeasesOptions): EntryLeases {
  const { commands, stream, group, consumer, leaseTimeoutMs, logger } = options;
  const renewedAt = new Map<string, number>();
  const renewIfOurs = redisScript(commands, 'a2aBridgePushRenewIfOurs', 1, RENEW_IF_OURS);
  const letGoIfOurs = redisScript(commands, 'a2aBridgePushLetGoIfOurs', 1, LET_GO_IF_OURS);

  return {
    taken: (id) => void renewedAt.set(id, Date.now()),
    finished: (id) => void renewedAt.delete(id),
    holds: (id) => renewedAt.has(id),
    async renew(olderThanMs) {
      const renewBefore = Date.now() - olderThanMs;
      const due = [...renewedAt].filter(([, at]) => at <= renewBefore).map(([id]) => id);
      const lost: string[] = [];
      for (let start = 0; start < due.length; start += RENEW_BATCH) {
        const batch = due.slice(start, start + RENEW_BATCH);
        const notOurs = new Set((await renewIfOurs(stream, group, consumer, ...batch)) as string[]);
        const now = Date.now();
        for (const id of batch) {
          // One finished meanwhile stays forgotten (its XACK went first).
          if (!renewedAt.has(id)) continue;
          if (notOurs.has(id)) {
            renewedAt.delete(id);
            lost.push(id);
          } else renewedAt.set(id, now);
        }
      }
      return lost;
    },
    async letGo(ids) {
      for (const id of ids) renewedAt.delete(id);
      if (ids.length === 0) return;
      try {
        for (let start = 0; start < ids.length; start += RENEW_BATCH)
          await letGoIfOurs(stream, group, consumer, leaseTimeoutMs, ...ids.slice(start, start + RENEW_BATCH));
      } catch (error) {
        logger.warn(
          { err: error, entries: ids.length },
          'A2A push queue could not let go of waiting entries; they are taken over once their lease expires',
        );
      }
    },
  };
}

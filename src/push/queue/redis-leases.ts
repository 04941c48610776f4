import type { Redis } from 'ioredis';
import type { PushLogger } from './types.js';

export interface EntryLeasesOptions {
  commands: Redis;
  stream: string;
  group: string;
  consumer: string;
  /** `push-lease-timeout-ms`: an entry idle this long in a consumer's pending list is taken over by another. */
  leaseTimeoutMs: number;
  logger: PushLogger;
}

/** Entries renewed in one XCLAIM: a replica can hold thousands (ids only, see redis-streams.ts). */
const RENEW_BATCH = 500;

/**
 * The stream entries one worker fetched and has not finished, and their leases. An entry read or claimed
 * is pending under this consumer; its lease is its idle time there. Every held entry is renewed while
 * held, waiting behind its webhook's delivery or in flight: an entry that waited can start its delivery
 * at any age, so its lease must not run out during it. Only a worker that stops renewing (a crashed or
 * frozen process) lets its entries be taken over.
 */
export interface EntryLeases {
  /** Notes an entry just read or claimed (its lease starts now). */
  taken(id: string): void;
  /** Forgets an entry whose outcome is recorded. */
  finished(id: string): void;
  /** Whether this worker holds the entry (waiting or in flight). */
  holds(id: string): boolean;
  /** Renews the leases of the held entries not renewed for `olderThanMs`. */
  renew(olderThanMs: number): Promise<void>;
  /**
   * Gives entries up without attempting them. `now`: any worker's next XAUTOCLAIM (this replica restarted
   * included) takes them at once; else once a lease from now. Either way their delivery count is put back
   * to what it was before this worker took them, so an entry handed around without ever being attempted
   * is not dead-lettered as one that keeps killing its workers.
   */
  letGo(ids: string[], when: 'now' | 'after-lease'): Promise<void>;
}

export function entryLeases(options: EntryLeasesOptions): EntryLeases {
  const { commands, stream, group, consumer, leaseTimeoutMs, logger } = options;
  const renewedAt = new Map<string, number>();

  /** Delivery counts of entries pending under this consumer (an entry no longer pending is left out). */
  async function deliveryCounts(ids: string[]): Promise<Map<string, number>> {
    const pipeline = commands.pipeline();
    for (const id of ids) pipeline.xpending(stream, group, id, id, 1, consumer);
    const replies = (await pipeline.exec()) ?? [];
    const counts = new Map<string, number>();
    for (const [error, reply] of replies) {
      if (error) throw error;
      const row = (reply as Array<[string, string, number, number]>)[0];
      if (row) counts.set(row[0], row[3]);
    }
    return counts;
  }

  return {
    taken: (id) => void renewedAt.set(id, Date.now()),
    finished: (id) => void renewedAt.delete(id),
    holds: (id) => renewedAt.has(id),
    async renew(olderThanMs) {
      const renewBefore = Date.now() - olderThanMs;
      const due = [...renewedAt].filter(([, at]) => at <= renewBefore).map(([id]) => id);
      for (let start = 0; start < due.length; start += RENEW_BATCH) {
        const batch = due.slice(start, start + RENEW_BATCH);
        // XCLAIM to this same consumer resets the idle time; JUSTID leaves the delivery count alone.
        await commands.xclaim(stream, group, consumer, 0, ...batch, 'JUSTID');
        const now = Date.now();
        // One finished meanwhile stays forgotten (its XACK went first or the XCLAIM found it gone).
        for (const id of batch) if (renewedAt.has(id)) renewedAt.set(id, now);
      }
    },
    async letGo(ids, when) {
      for (const id of ids) renewedAt.delete(id);
      if (ids.length === 0) return;
      try {
        const idle = when === 'now' ? leaseTimeoutMs : 0;
        const counts = await deliveryCounts(ids);
        // Taking an entry counted one delivery (XREADGROUP or XAUTOCLAIM); the next taker counts its own.
        const pipeline = commands.pipeline();
        for (const [id, count] of counts)
          pipeline.xclaim(stream, group, consumer, 0, id, 'IDLE', idle, 'RETRYCOUNT', Math.max(0, count - 1), 'JUSTID');
        const replies = (await pipeline.exec()) ?? [];
        const failed = replies.find(([error]) => error)?.[0];
        if (failed) throw failed;
      } catch (error) {
        logger.warn(
          { err: error, entries: ids.length },
          'A2A push queue could not let go of waiting entries; they are taken over once their lease expires',
        );
      }
    },
  };
}

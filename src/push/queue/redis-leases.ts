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

/**
 * The stream entries one worker fetched and has not finished, and their leases. An entry read or claimed
 * is pending under this consumer; its lease is its idle time there. An entry waiting behind a delivery to
 * its webhook is not being worked on, yet must not look abandoned: its lease is renewed while it waits.
 */
export interface EntryLeases {
  /** Notes an entry just read or claimed (its lease starts now). */
  taken(id: string): void;
  /** Forgets an entry whose outcome is recorded (or that was let go of). */
  finished(id: string): void;
  /** Whether this worker holds the entry (waiting or in flight). */
  holds(id: string): boolean;
  /** Renews the leases of the held entries `waiting` selects that are a third of a lease old. */
  renew(waiting: (id: string) => boolean): Promise<void>;
  /** Gives entries up: any worker's next XAUTOCLAIM (this replica restarted included) takes them at once. */
  letGo(ids: string[]): Promise<void>;
}

export function entryLeases(options: EntryLeasesOptions): EntryLeases {
  const { commands, stream, group, consumer, leaseTimeoutMs, logger } = options;
  const renewedAt = new Map<string, number>();
  return {
    taken: (id) => void renewedAt.set(id, Date.now()),
    finished: (id) => void renewedAt.delete(id),
    holds: (id) => renewedAt.has(id),
    async renew(waiting) {
      const renewBefore = Date.now() - leaseTimeoutMs / 3;
      const due = [...renewedAt].filter(([id, at]) => at <= renewBefore && waiting(id)).map(([id]) => id);
      if (due.length === 0) return;
      // XCLAIM to this same consumer resets the idle time; JUSTID leaves the delivery count alone.
      await commands.xclaim(stream, group, consumer, 0, ...due, 'JUSTID');
      const now = Date.now();
      for (const id of due) renewedAt.set(id, now);
    },
    async letGo(ids) {
      for (const id of ids) renewedAt.delete(id);
      if (ids.length === 0) return;
      // Idle for a whole lease already: stale to the next XAUTOCLAIM instead of after the lease.
      await commands.xclaim(stream, group, consumer, 0, ...ids, 'IDLE', leaseTimeoutMs, 'JUSTID').catch((error: unknown) => {
        logger.warn(
          { err: error, entries: ids.length },
          'A2A push queue could not let go of waiting entries; they are taken over once their lease expires',
        );
      });
    },
  };
}

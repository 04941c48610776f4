import type { Redis } from 'ioredis';
import type { StreamEntry } from './redis-outcomes.js';
import { compareEntryIds, type WebhookOrder } from './webhook-order.js';

export interface StreamReadsOptions {
  commands: Redis;
  stream: string;
  group: string;
  consumer: string;
  retryKey: string;
  /** `push-lease-timeout-ms`: entries idle this long under another consumer are taken over. */
  leaseTimeoutMs: number;
  /** Upper bound of one blocking read. */
  blockMs: number;
  /** Due retries brought back per round. */
  window: number;
  order: WebhookOrder;
}

/** The field pairs of an XINFO reply (`[name, value, name, value, …]`) by name. */
function fieldsOf(reply: unknown): Map<unknown, unknown> {
  const flat: unknown[] = Array.isArray(reply) ? reply : [];
  return new Map(flat.flatMap((value, at) => (at % 2 === 0 ? [[value, flat[at + 1]] as const] : [])));
}

/** How one consumer of the group brings entries in: due retries, stale entries taken over, new ones. */
export function streamReads(options: StreamReadsOptions) {
  const { commands, stream, group, consumer } = options;
  let claimCursor = '0-0';

  return {
    async ensureGroup(): Promise<void> {
      try {
        await commands.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
      } catch (error) {
        if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
      }
    },

    async promoteDueRetries(): Promise<void> {
      const due = await commands.zrangebyscore(options.retryKey, '-inf', Date.now(), 'LIMIT', 0, options.window);
      for (const member of due) await options.order.promote(member);
    },

    async claimStale(count: number): Promise<StreamEntry[]> {
      const reply = (await commands.call('XAUTOCLAIM', stream, group, consumer, options.leaseTimeoutMs, claimCursor, 'COUNT', count)) as [
        string,
        Array<StreamEntry | null>,
      ];
      claimCursor = reply[0];
      // Redis 6.2 reports entries deleted while pending as null; 7 lists them separately.
      return reply[1].filter((entry): entry is StreamEntry => entry !== null);
    },

    /** `block`: wait up to `blockMs` for an entry; else answer at once (a round that also took over stale entries). */
    async readNew(connection: Redis, count: number, block: boolean): Promise<StreamEntry[]> {
      const wait = block ? ['BLOCK', options.blockMs] : [];
      const reply = (await connection.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', count, ...wait, 'STREAMS', stream, '>')) as Array<
        [string, StreamEntry[]]
      > | null;
      return reply?.[0]?.[1] ?? [];
    },

    /** Whether some of `ids` (entries in the stream) no consumer of the group has read yet. */
    async anyUnread(ids: string[]): Promise<boolean> {
      if (ids.length === 0) return false;
      const groups = (await commands.xinfo('GROUPS', stream)) as unknown[];
      const ours = groups.map(fieldsOf).find((fields) => fields.get('name') === group);
      const lastRead = ours?.get('last-delivered-id');
      // No such group (the stream deleted meanwhile): the read that follows finds out and recreates it.
      if (typeof lastRead !== 'string') return true;
      return ids.some((id) => compareEntryIds(id, lastRead) > 0);
    },
  };
}

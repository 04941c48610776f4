import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import type { PushJob } from './types.js';
import { webhookOf } from './webhook-lanes.js';
import { redisScript } from '../../redis/connection.js';

/**
 * How long a webhook's order list outlives its last enqueue. Finished entries leave it at once; this
 * only reclaims a list whose entries vanished some other way (an operator deleting the stream).
 */
const ORDER_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * `<stream>:order:<hash>`: the stream ids of one webhook's entries not finished yet, oldest first.
 * A hash, so owner, task, config and URL of any length make one short key.
 */
export function webhookOrderKey(stream: string, job: Pick<PushJob, 'owner' | 'taskId' | 'configId' | 'url'>): string {
  return `${stream}:order:${createHash('sha256').update(webhookOf(job)).digest('base64url').slice(0, 24)}`;
}

function jobOfMember(member: string): PushJob | undefined {
  try {
    return JSON.parse(member) as PushJob;
  } catch {
    return undefined;
  }
}

/** Stream ids (`<ms>-<seq>`) in stream order. */
export function compareEntryIds(a: string, b: string): number {
  const [ams = 0, aseq = 0] = a.split('-').map(Number);
  const [bms = 0, bseq = 0] = b.split('-').map(Number);
  return ams - bms || aseq - bseq;
}

/**
 * What holds a failed entry's place in its line while it waits in the retry set: `0-<due time>`. Shaped
 * like a stream id no entry has, so a replica of a version before retries kept their place finds it
 * gone from the stream and drops it (that webhook's line then works as it did there).
 */
const retryMarker = (dueAt: number): string => `0-${dueAt}`;

/** XADD and its place in the webhook's line in one step, so the line is in stream order. KEYS stream, order; ARGV job, ttl. */
const ENQUEUE = `
local id = redis.call('XADD', KEYS[1], '*', 'job', ARGV[1])
redis.call('RPUSH', KEYS[2], id)
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return id
`;

/**
 * Moves one due retry back onto the stream, in the place its marker (ARGV[3]) kept in its webhook's line,
 * or at the end of the line when it kept none: it left the line (ARGV[3] empty), or was scheduled by a
 * replica of a version before markers. ZREM first so only one replica promotes it. KEYS retry set, stream,
 * order; ARGV job, ttl, marker.
 */
const PROMOTE = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  local id = redis.call('XADD', KEYS[2], '*', 'job', ARGV[1])
  if ARGV[3] ~= '' and redis.call('LINSERT', KEYS[3], 'BEFORE', ARGV[3], id) > 0 then
    redis.call('LREM', KEYS[3], 1, ARGV[3])
  else
    redis.call('RPUSH', KEYS[3], id)
  end
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  return id
end
return false
`;

/**
 * 1 when entry ARGV[1] may be delivered now: it is the first unfinished entry of its webhook's line,
 * whichever replica holds the others. Else what it waits for, the line's head: an entry id, or a retry
 * marker. Heads that are finished without having left the line (an entry gone from the stream, a marker
 * whose retry is gone from the retry set) are dropped first. An entry not in its line at all (queued by a
 * replica before lines existed) goes, as it would have. KEYS stream, order, retry set.
 */
const MAY_GO = `
local id = ARGV[1]
while true do
  local head = redis.call('LINDEX', KEYS[2], 0)
  if not head or head == id then return 1 end
  local dueAt = string.match(head, '^0%-(%d+)$')
  local unfinished
  if dueAt then
    unfinished = redis.call('ZCOUNT', KEYS[3], dueAt, dueAt) > 0
  else
    unfinished = #redis.call('XRANGE', KEYS[1], head, head) == 1
  end
  if unfinished then
    if not redis.call('LPOS', KEYS[2], id) then return 1 end
    return head
  end
  redis.call('LPOP', KEYS[2])
end
`;

/**
 * What an entry not at the head of its line waits for: an older entry of its webhook (`entryId`), or its
 * webhook's entry that failed and waits in the retry set until `retryDueAt`.
 */
export type Ahead = { entryId: string } | { retryDueAt: number };

/**
 * One webhook's notifications in the order they were queued, across every replica reading the stream:
 * each webhook has a line of its unfinished entries (a Redis list, maintained when an entry is added to
 * the stream and when its outcome is recorded), and an entry is delivered only at the head of its line.
 * A replica holding a later entry waits (see redis-streams.ts) until the replica holding the head has
 * finished it; a crashed replica's head is taken over after its lease as before. An entry that failed
 * keeps its place: a marker holds it while the job waits in the retry set, and the entry the retry comes
 * back as takes the marker's place, so the webhook's later entries wait until it is delivered or
 * dead-lettered.
 */
export function webhookOrder(commands: Redis, stream: string, retryKey: string) {
  const enqueue = redisScript(commands, 'a2aBridgePushEnqueueInLine', 2, ENQUEUE);
  const promote = redisScript(commands, 'a2aBridgePushPromoteInPlace', 3, PROMOTE);
  const mayGo = redisScript(commands, 'a2aBridgePushMayGoOrAhead', 3, MAY_GO);
  return {
    enqueue: (job: PushJob) => enqueue(stream, webhookOrderKey(stream, job), JSON.stringify(job), ORDER_TTL_MS),
    /** `member`: the retry set's member, the job's JSON. */
    promote(member: string) {
      // A member that is not a job is dead-lettered once on the stream; its line is only a placeholder.
      const job = jobOfMember(member);
      const line = job ? webhookOrderKey(stream, job) : `${stream}:order:unreadable`;
      // Only a retry that kept its place takes a marker's: one that left the line and is due the same
      // millisecond would take the other's place. Absent (a version before it was recorded): as there.
      const marker = job && job.keepsPlace !== false ? retryMarker(job.nextAttemptAt) : '';
      return promote(retryKey, stream, line, member, ORDER_TTL_MS, marker);
    },
    /** True when the entry may be delivered now, else what it waits for. */
    async mayGo(job: PushJob, id: string): Promise<true | Ahead> {
      const reply = await mayGo(stream, webhookOrderKey(stream, job), retryKey, id);
      if (reply === 1) return true;
      const head = String(reply);
      const dueAt = /^0-(\d+)$/.exec(head)?.[1];
      return dueAt === undefined ? { entryId: head } : { retryDueAt: Number(dueAt) };
    },
    /** Adds leaving the line to the transaction that records an entry's outcome. */
    leave: (transaction: ChainableCommander, job: PushJob | undefined, id: string) =>
      job ? transaction.lrem(webhookOrderKey(stream, job), 1, id) : transaction,
    /**
     * Adds, to the transaction that puts `retried` (the job of entry `id`) in the retry set, what becomes of
     * the entry's place in its line: a marker takes it when the retry keeps its place (`keepsPlace`), so
     * the webhook's later entries keep waiting behind it; else the entry leaves the line.
     */
    reschedule: (transaction: ChainableCommander, retried: PushJob, id: string) => {
      const line = webhookOrderKey(stream, retried);
      if (!retried.keepsPlace) return transaction.lrem(line, 1, id);
      return transaction.linsert(line, 'BEFORE', id, retryMarker(retried.nextAttemptAt)).lrem(line, 1, id);
    },
  };
}

export type WebhookOrder = ReturnType<typeof webhookOrder>;

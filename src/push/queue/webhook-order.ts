import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import type { PushJob } from './types.js';
import { webhookOf } from './webhook-lanes.js';
import { redisScript } from '../../redis-connection.js';

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

/** XADD and its place in the webhook's line in one step, so the line is in stream order. KEYS stream, order; ARGV job, ttl. */
const ENQUEUE = `
local id = redis.call('XADD', KEYS[1], '*', 'job', ARGV[1])
redis.call('RPUSH', KEYS[2], id)
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return id
`;

/** Moves one due retry back onto the stream, at the end of its webhook's line; ZREM first so only one replica promotes it. */
const PROMOTE = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  local id = redis.call('XADD', KEYS[2], '*', 'job', ARGV[1])
  redis.call('RPUSH', KEYS[3], id)
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  return id
end
return false
`;

/**
 * 1 when entry ARGV[1] may be delivered now: it is the oldest unfinished entry of its webhook, whichever
 * replica holds the others. Heads no longer in the stream (finished without leaving the line) are dropped
 * first. An entry older than the head is not in the line (queued by a replica before lines existed): it
 * goes, as it would have. KEYS stream, order.
 */
const MAY_GO = `
local function older(a, b)
  local ams, aseq = string.match(a, '^(%d+)-(%d+)$')
  local bms, bseq = string.match(b, '^(%d+)-(%d+)$')
  if tonumber(ams) ~= tonumber(bms) then return tonumber(ams) < tonumber(bms) end
  return tonumber(aseq) < tonumber(bseq)
end
local id = ARGV[1]
while true do
  local head = redis.call('LINDEX', KEYS[2], 0)
  if not head or head == id or older(id, head) then return 1 end
  if #redis.call('XRANGE', KEYS[1], head, head) == 1 then return 0 end
  redis.call('LPOP', KEYS[2])
end
`;

/**
 * One webhook's notifications in the order they were queued, across every replica reading the stream:
 * each webhook has a line of its unfinished entries (a Redis list, maintained when an entry is added to
 * the stream and when its outcome is recorded), and an entry is delivered only at the head of its line.
 * A replica holding a later entry waits (see redis-streams.ts) until the replica holding the head has
 * finished it; a crashed replica's head is taken over after its lease as before.
 */
export function webhookOrder(commands: Redis, stream: string) {
  const enqueue = redisScript(commands, 'a2aBridgePushEnqueueInLine', 2, ENQUEUE);
  const promote = redisScript(commands, 'a2aBridgePushPromoteInLine', 3, PROMOTE);
  const mayGo = redisScript(commands, 'a2aBridgePushMayGo', 2, MAY_GO);
  return {
    enqueue: (job: PushJob) => enqueue(stream, webhookOrderKey(stream, job), JSON.stringify(job), ORDER_TTL_MS),
    /** `member`: the retry set's member, the job's JSON. */
    promote(retryKey: string, member: string) {
      // A member that is not a job is dead-lettered once on the stream; its line is only a placeholder.
      const job = jobOfMember(member);
      const line = job ? webhookOrderKey(stream, job) : `${stream}:order:unreadable`;
      return promote(retryKey, stream, line, member, ORDER_TTL_MS);
    },
    mayGo: async (job: PushJob, id: string) => (await mayGo(stream, webhookOrderKey(stream, job), id)) === 1,
    /** Adds leaving the line to the transaction that records an entry's outcome. */
    leave: (transaction: ChainableCommander, job: PushJob | undefined, id: string) =>
      job ? transaction.lrem(webhookOrderKey(stream, job), 1, id) : transaction,
  };
}

export type WebhookOrder = ReturnType<typeof webhookOrder>;

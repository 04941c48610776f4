import type { ChainableCommander, Redis } from 'ioredis';
import { dispose, runHandler, type RetryPolicy } from './retry-policy.js';
import type { PushHandler, PushJob, PushLogger } from './types.js';
import { webhookOrigin } from './webhook-origin.js';
import { withFields } from '../../model/index.js';
import { redisScript } from '../../redis/connection.js';
import type { Ahead, WebhookOrder } from './webhook-order.js';

export type StreamEntry = [id: string, fields: string[]];

export interface EntryOutcomesOptions {
  commands: Redis;
  stream: string;
  group: string;
  /** This worker's consumer name: an entry held by id is attempted only while still pending under it. */
  consumer: string;
  retryKey: string;
  deadStream: string;
  policy: RetryPolicy;
  logger: PushLogger;
  /** Each webhook's line across replicas: an entry is attempted only at its head, and leaves it with its outcome. */
  order: WebhookOrder;
  /** Told of each dead letter made without an attempt of this worker's (the service counts it, as it counts attempts). */
  deadLetteredUnattempted(): void;
}

/** `waitsFor`: the entry is not at the head of its webhook's line, which is what it waits for; nothing was recorded. */
export type EntryHandling = 'done' | { waitsFor: Ahead };

/**
 * An entry held by id, read when its turn comes: its fields if it is still pending under this consumer
 * (ARGV[2]); 0 if another replica took it over (or finished it); 1 if it is ours but gone from the
 * stream, its pending record then cleared. In one script, so the check and the read see the same state.
 * KEYS[1] stream; ARGV[1] group; ARGV[3] id.
 */
const READ_IF_OURS = `
local id = ARGV[3]
if #redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1, ARGV[2]) == 0 then return 0 end
local entry = redis.call('XRANGE', KEYS[1], id, id)[1]
if entry then return entry end
redis.call('XACK', KEYS[1], ARGV[1], id)
return 1
`;

/** EXEC reports a failing command in its reply instead of rejecting; the entry must then stay pending. */
async function execAll(transaction: ChainableCommander): Promise<void> {
  const replies = await transaction.exec();
  const failed = replies?.find(([error]) => error);
  if (!replies || failed) throw failed?.[0] ?? new Error('Redis transaction aborted');
}

export function jobOf(fields: string[]): PushJob | undefined {
  const index = fields.indexOf('job');
  try {
    return index >= 0 && index % 2 === 0 ? (JSON.parse(fields[index + 1] as string) as PushJob) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Attempts one stream entry and records its outcome: delivered, rescheduled in the retry set, or copied
 * to the dead stream, each in one MULTI with the XACK (and XDEL), so an entry is acknowledged only once
 * its outcome is recorded (and the entry leaves its webhook's line in the same MULTI, or, rescheduled, leaves
 * a marker in its place). An entry that is not at the head of its webhook's line is not attempted:
 * `waitsFor` what is ahead of it, for the caller to offer it again later.
 */
export function entryOutcomes(options: EntryOutcomesOptions) {
  const { commands, stream, group, consumer, policy, logger, order } = options;
  const readIfOurs = redisScript(commands, 'a2aBridgePushReadIfOurs', 1, READ_IF_OURS);

  /** Times an entry has been handed out; a job that keeps killing its worker must not circulate forever. */
  async function deliveries(id: string): Promise<number> {
    const reply = (await commands.xpending(stream, group, id, id, 1)) as Array<[string, string, number, number]>;
    return reply[0]?.[3] ?? 1;
  }

  async function deadLetter(id: string, job: PushJob | undefined, raw: string[], reason: string): Promise<void> {
    const payload = job ? JSON.stringify(job) : JSON.stringify(raw);
    await execAll(
      order.leave(commands.multi().xadd(options.deadStream, '*', 'job', payload, 'reason', reason).xack(stream, group, id).xdel(stream, id), job, id),
    );
    const webhook = job && webhookOrigin(job.url);
    logger.error({ jobId: job?.jobId, taskId: job?.taskId, configId: job?.configId, webhook, reason }, 'A2A push notification dead-lettered');
  }

  async function handle(run: PushHandler, [id, fields]: StreamEntry, claimed: boolean): Promise<EntryHandling> {
    const job = jobOf(fields);
    if (!job) {
      await deadLetter(id, undefined, fields, 'malformed job entry');
      options.deadLetteredUnattempted();
      return 'done';
    }
    if (claimed) {
      const count = await deliveries(id);
      if (count > policy.maxAttempts) {
        await deadLetter(id, withFields(job, { lastError: 'delivery lease expired' }), fields, `delivery lease expired ${count - 1} times`);
        options.deadLetteredUnattempted();
        return 'done';
      }
    }
    const ahead = await order.mayGo(job, id);
    if (ahead !== true) return { waitsFor: ahead };
    const next = dispose(job, await runHandler(run, job), policy);
    if (next.kind === 'ack') {
      await execAll(order.leave(commands.multi().xack(stream, group, id).xdel(stream, id), job, id));
    } else if (next.kind === 'retry') {
      // Keeps its place at the head of its webhook's line while it waits for its retry, unless it may have arrived (keepsPlace).
      const reschedule = commands.multi().zadd(options.retryKey, next.job.nextAttemptAt, JSON.stringify(next.job));
      await execAll(order.reschedule(reschedule.xack(stream, group, id).xdel(stream, id), next.job, id));
    } else {
      await deadLetter(id, next.job, fields, next.reason);
    }
    return 'done';
  }

  /**
   * Like `handle`, for an entry held by id only (it waited behind its webhook): its fields are read first.
   * An entry another replica took over while it waited (this one stalled past a lease) is not attempted:
   * that replica delivers it. Nor is one no longer in the stream (a worker that took it over finished it).
   */
  async function handleById(run: PushHandler, id: string, claimed: boolean): Promise<EntryHandling> {
    const entry = (await readIfOurs(stream, group, consumer, id)) as StreamEntry | 0 | 1;
    if (entry === 0) {
      logger.warn({ entryId: id }, 'A2A push queue entry was taken over by another replica while it waited; not delivered here');
      return 'done';
    }
    if (entry === 1) return 'done';
    return handle(run, entry, claimed);
  }

  return { handle, handleById };
}

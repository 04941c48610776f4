import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ChainableCommander, Redis } from 'ioredis';
import { noteRedisError } from '../../observability/redis-errors.js';
import { DEFAULT_RETRY_POLICY, dispose, runHandler, type RetryPolicy } from './retry-policy.js';
import { silentLogger, type PushHandler, type PushJob, type PushLogger, type PushQueue } from './types.js';
import { WebhookLanes, webhookOf } from './webhook-lanes.js';
import { entryLeases } from './redis-leases.js';
import { closeRedis, connectRedis, redisScript, type RedisTarget } from '../../redis-connection.js';
import { withFields } from '../../model/index.js';

export interface RedisStreamsQueueOptions {
  /** `push-redis-url`, falling back to `redis-url`. */
  url: RedisTarget;
  /** `push-stream`: entries `job=<json>`. */
  stream: string;
  /** `push-retry-key`: sorted set of jobs waiting for a retry, scored by due time (epoch ms). */
  retryKey: string;
  /** `push-dead-stream`: entries `job=<json> reason=<text>`. */
  deadStream: string;
  /** `push-consumer-group`, shared by every replica. */
  group: string;
  /** `push-consumer-name`; default `<hostname>-<pid>-<random>`, unique per process. */
  consumer?: string;
  /** `push-lease-timeout-ms`: an entry idle this long in another consumer's pending list is taken over. */
  leaseTimeoutMs: number;
  retry?: Partial<RetryPolicy>;
  /** Deliveries in flight at once (default 8, as the local-file queue); entries are fetched only for free slots. */
  concurrency?: number;
  /** Upper bound of one blocking read, so due retries and stale leases are looked at regularly. */
  blockMs?: number;
  logger?: PushLogger;
}

type StreamEntry = [id: string, fields: string[]];

/** An entry fetched by this replica and not finished: waiting behind its webhook's delivery, or in flight. */
interface Fetched {
  entry: StreamEntry;
  claimed: boolean;
}

/**
 * Entries waiting behind their webhook's delivery, at most this many per slot of the window: past that no
 * more are fetched (a burst to a few webhooks that never answer must not pull the whole stream into memory).
 */
const WAITING_PER_SLOT = 16;

/** Moves one due retry back onto the stream; ZREM first so only one replica promotes it. */
const PROMOTE = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  return redis.call('XADD', KEYS[2], '*', 'job', ARGV[1])
end
return false
`;

/** EXEC reports a failing command in its reply instead of rejecting; the entry must then stay pending. */
async function execAll(transaction: ChainableCommander): Promise<void> {
  const replies = await transaction.exec();
  const failed = replies?.find(([error]) => error);
  if (!replies || failed) throw failed?.[0] ?? new Error('Redis transaction aborted');
}

export const defaultConsumerName = (): string => `${hostname()}-${process.pid}-${randomBytes(6).toString('hex')}`;

function jobOf(fields: string[]): PushJob | undefined {
  const index = fields.indexOf('job');
  try {
    return index >= 0 && index % 2 === 0 ? (JSON.parse(fields[index + 1] as string) as PushJob) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * At-least-once delivery over Redis Streams with a consumer group shared by all replicas. Each round,
 * for the slots free in the window: promote due retries, take over entries whose consumer stopped acking
 * for longer than the lease (a crashed worker's), else read new entries with a bounded block. An entry is acknowledged (and
 * deleted) only once its outcome is recorded: delivered, rescheduled in the retry set, or copied to
 * the dead stream, each in one MULTI with the XACK.
 *
 * A replica delivers to one webhook one entry at a time, in stream order (webhook-lanes.ts): an entry whose
 * webhook has a delivery in flight here waits behind it, still pending under this consumer, and its lease
 * is renewed while it waits so no other replica takes it over. Entries of one webhook fetched by two
 * replicas are not ordered between them (see "Delivery order" in the README).
 */
export function createRedisStreamsQueue(options: RedisStreamsQueueOptions): PushQueue & { readonly consumer: string } {
  const policy: RetryPolicy = withFields(DEFAULT_RETRY_POLICY, options.retry);
  const consumer = options.consumer ?? defaultConsumerName();
  const window = Math.max(1, options.concurrency ?? 8);
  const blockMs = Math.max(1, options.blockMs ?? 1_000);
  const logger = options.logger ?? silentLogger;
  const { stream, group } = options;

  // A write fails soon after Redis went away (instead of waiting out 20 reconnects, ~10 s): the queue's
  // enqueue is wrapped by holdWhileUnreachable, which keeps the job and offers it again.
  const commands = connectRedis(options.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  commands.on('error', (error: unknown) => {
    noteRedisError('push-queue');
    logger.warn({ err: error }, 'A2A push queue Redis connection error');
  });
  const promote = redisScript(commands, 'a2aBridgePushPromote', 2, PROMOTE);
  let blocking: Redis | undefined;
  let running = false;
  let loop: Promise<void> | undefined;
  let claimCursor = '0-0';
  const leases = entryLeases({ commands, stream, group, consumer, leaseTimeoutMs: options.leaseTimeoutMs, logger });

  async function ensureGroup(): Promise<void> {
    try {
      await commands.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
  }

  async function promoteDueRetries(): Promise<void> {
    const due = await commands.zrangebyscore(options.retryKey, '-inf', Date.now(), 'LIMIT', 0, window);
    for (const member of due) await promote(options.retryKey, stream, member);
  }

  async function claimStale(count: number): Promise<StreamEntry[]> {
    const reply = (await commands.call('XAUTOCLAIM', stream, group, consumer, options.leaseTimeoutMs, claimCursor, 'COUNT', count)) as [
      string,
      Array<StreamEntry | null>,
    ];
    claimCursor = reply[0];
    // Redis 6.2 reports entries deleted while pending as null; 7 lists them separately.
    return reply[1].filter((entry): entry is StreamEntry => entry !== null);
  }

  async function readNew(connection: Redis, count: number): Promise<StreamEntry[]> {
    const reply = (await connection.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', stream, '>')) as Array<
      [string, StreamEntry[]]
    > | null;
    return reply?.[0]?.[1] ?? [];
  }

  /** Times an entry has been handed out; a job that keeps killing its worker must not circulate forever. */
  async function deliveries(id: string): Promise<number> {
    const reply = (await commands.xpending(stream, group, id, id, 1)) as Array<[string, string, number, number]>;
    return reply[0]?.[3] ?? 1;
  }

  async function deadLetter(id: string, job: PushJob | undefined, raw: string[], reason: string): Promise<void> {
    const payload = job ? JSON.stringify(job) : JSON.stringify(raw);
    await execAll(commands.multi().xadd(options.deadStream, '*', 'job', payload, 'reason', reason).xack(stream, group, id).xdel(stream, id));
    logger.error({ jobId: job?.jobId, taskId: job?.taskId, configId: job?.configId, reason }, 'A2A push notification dead-lettered');
  }

  async function handle(run: PushHandler, [id, fields]: StreamEntry, claimed: boolean): Promise<void> {
    const job = jobOf(fields);
    if (!job) return deadLetter(id, undefined, fields, 'malformed job entry');
    if (claimed) {
      const count = await deliveries(id);
      if (count > policy.maxAttempts) {
        return deadLetter(id, withFields(job, { lastError: 'delivery lease expired' }), fields, `delivery lease expired ${count - 1} times`);
      }
    }
    const next = dispose(job, await runHandler(run, job), policy);
    if (next.kind === 'ack') {
      await execAll(commands.multi().xack(stream, group, id).xdel(stream, id));
    } else if (next.kind === 'retry') {
      await execAll(
        commands.multi().zadd(options.retryKey, next.job.nextAttemptAt, JSON.stringify(next.job)).xack(stream, group, id).xdel(stream, id),
      );
    } else {
      await deadLetter(id, next.job, fields, next.reason);
    }
  }

  /**
   * A sliding window, like the local-file queue's: up to `window` deliveries in flight, each started as
   * its entry is fetched (or, behind another delivery to its webhook, as that one ends), and only as many
   * entries fetched as there are free slots. So a webhook that never answers holds one slot until
   * `push-timeout-ms`, not every other caller's notifications.
   */
  async function work(run: PushHandler, connection: Redis): Promise<void> {
    const inFlight = new Map<string, Promise<void>>();
    const lanes = new WebhookLanes<Fetched>();
    let groupReady = false;
    const startReady = (): void => {
      while (running && inFlight.size < window) {
        const next = lanes.take();
        if (!next) return;
        const [id] = next.item.entry;
        const delivery = handle(run, next.item.entry, next.item.claimed)
          .catch((error: unknown) =>
            // Left pending: the lease expires and the entry is delivered again.
            logger.error({ err: error, entryId: id }, 'A2A push queue could not record a delivery outcome'),
          )
          .finally(() => {
            inFlight.delete(id);
            leases.finished(id);
            lanes.done(next.lane);
            startReady();
          });
        inFlight.set(id, delivery);
      }
    };
    const fetched = (entries: StreamEntry[], claimed: boolean): void => {
      for (const entry of entries) {
        const job = jobOf(entry[1]);
        leases.taken(entry[0]);
        // A malformed entry has no webhook: a lane of its own, so it is dead-lettered at once.
        lanes.add(job ? webhookOf(job) : `entry:${entry[0]}`, { entry, claimed });
      }
      startReady();
    };
    while (running) {
      try {
        if (!groupReady) {
          await ensureGroup();
          groupReady = true;
        }
        await leases.renew((id) => !inFlight.has(id));
        const free = window - inFlight.size;
        if (free <= 0 || lanes.waiting() >= window * WAITING_PER_SLOT) {
          // Never empty here: entries wait only behind a delivery in flight.
          await Promise.race(inFlight.values());
          continue;
        }
        await promoteDueRetries();
        // An entry of ours still in flight or waiting can look stale to XAUTOCLAIM (held longer than the lease): it is not taken twice.
        const stale = (await claimStale(free)).filter(([id]) => !leases.holds(id));
        fetched(stale, true);
        if (stale.length > 0) continue;
        fetched(await readNew(connection, free), false);
      } catch (error) {
        // NOGROUP: the stream was deleted under us; recreate the group next round.
        if (String((error as Error).message).includes('NOGROUP')) groupReady = false;
        else logger.warn({ err: error }, 'A2A push queue worker round failed');
        if (running) await new Promise((resolve) => setTimeout(resolve, Math.min(blockMs, 500)));
      }
    }
    // Outcomes of deliveries started are always recorded, even when stop() was called meanwhile. Entries
    // still waiting are not started (each could wait out a slow webhook): once the deliveries ahead of them
    // ended (so another worker cannot overtake those), they are let go of for another worker.
    await Promise.all(inFlight.values());
    await leases.letGo(lanes.drain().map(({ entry }) => entry[0]));
  }

  return {
    consumer,
    async enqueue(job) {
      await commands.xadd(stream, '*', 'job', JSON.stringify(job));
    },
    async depth() {
      // Acknowledged entries are deleted, so the stream holds exactly the jobs not yet done.
      const [length, retries] = await Promise.all([commands.xlen(stream), commands.zcard(options.retryKey)]);
      return length + retries;
    },
    start(run) {
      if (loop) throw new Error('push queue already started');
      running = true;
      // A blocking read holds its connection; commands of the same round need another one.
      blocking = commands.duplicate();
      blocking.on('error', (error: unknown) => {
        noteRedisError('push-queue');
        logger.warn({ err: error }, 'A2A push queue Redis connection error');
      });
      loop = work(run, blocking).catch((error: unknown) => logger.error({ err: error }, 'A2A push queue worker stopped'));
    },
    async stop() {
      running = false;
      await loop;
      await Promise.all([blocking, commands].map((connection) => (connection ? closeRedis(connection) : Promise.resolve())));
    },
  };
}

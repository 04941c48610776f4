import type { Redis } from 'ioredis';
import { REDIS_WARN_EVERY_MS, watchRedis } from '../../observability/redis-errors.js';
import { throttledWarnings } from '../../throttled-warnings.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
import { silentLogger, type PushHandler, type PushQueue, type PushQueueReports } from './types.js';
import { WebhookLanes, webhookOf } from './webhook-lanes.js';
import { entryLeases } from './redis-leases.js';
import { renewLeasesMeanwhile } from './lease-renewal.js';
import { entryOutcomes, jobOf, type StreamEntry } from './redis-outcomes.js';
import { streamReads } from './stream-reads.js';
import { compareEntryIds, webhookOrder } from './webhook-order.js';
import { awaitedEntry, MAX_PARKED_MS, parkedLanes } from './parked-lanes.js';
import { closeRedis, connectRedis } from '../../redis/connection.js';
import { withFields } from '../../model/index.js';
import { defaultConsumerName, DEFAULT_MAX_WAITING_ENTRIES, type RedisStreamsQueueOptions } from './redis-streams-options.js';

export type { RedisStreamsQueueOptions } from './redis-streams-options.js';

/**
 * An entry fetched by this replica and not finished: waiting behind its webhook's delivery, or in flight.
 * One that has to wait keeps only its id (its fields are read again when its turn comes), so a long
 * backlog to one webhook costs a few dozen bytes an entry.
 */
interface Fetched {
  id: string;
  claimed: boolean;
  fields?: string[];
}

/**
 * How many entries per delivery slot a replica whose slots are all busy reads ahead to find another owner's
 * (work): enough to reach past one owner's few dozen stuck webhooks, not a backlog other replicas could deliver.
 */
const READ_AHEAD_SLOTS = 8;
/**
 * How long the oldest delivery in flight must have run before a replica whose slots are all busy reads ahead: a
 * replica that is merely busy (every delivery quick) leaves what it cannot start yet to the other replicas.
 */
const READ_AHEAD_AFTER_MS = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * At-least-once delivery over Redis Streams with a consumer group shared by all replicas. Each round,
 * for the slots free in the window: promote due retries, take over entries whose consumer stopped acking
 * for longer than the lease (a crashed worker's), else read new entries with a bounded block. An entry is acknowledged (and
 * deleted) only once its outcome is recorded: delivered, rescheduled in the retry set, or copied to
 * the dead stream, each in one MULTI with the XACK.
 *
 * A replica delivers to one webhook one entry at a time, in stream order (webhook-lanes.ts): an entry whose
 * webhook has a delivery in flight here waits behind it, still pending under this consumer. Every entry
 * held (waiting or in flight) and still ours has its lease renewed so no other replica takes it over; one
 * taken over anyway (this replica stalled past a lease) is left to the replica that took it. A webhook's
 * backlog is held whole, up to `maxWaitingEntries` waiting in all, so fetching goes on for the others.
 * Across replicas, an entry is attempted only once every older entry of its webhook is finished, whichever
 * replica holds it (webhook-order.ts); until then its lane is parked (parked-lanes.ts), holding no slot.
 * An entry that failed keeps its place in its webhook's line while it waits in the retry set.
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
  // Counted, and logged at most every 30 s (with the blocking connection's errors) instead of on every failed reconnect.
  const watchAnother = watchRedis(commands, { store: 'push-queue', logger });
  // A round fails every half second while Redis is away: told as often as the connection's own errors, the rest counted (`leftOut`).
  const warnRoundFailed = throttledWarnings(logger, REDIS_WARN_EVERY_MS);
  const order = webhookOrder(commands, stream, options.retryKey);
  let blocking: Redis | undefined;
  let running = false;
  let loop: Promise<void> | undefined;
  let reports: PushQueueReports | undefined;
  const maxWaitingEntries = Math.max(1, options.maxWaitingEntries ?? DEFAULT_MAX_WAITING_ENTRIES);
  const readAheadBound = Math.min(maxWaitingEntries, window * READ_AHEAD_SLOTS);
  const reads = streamReads({
    commands,
    stream,
    group,
    consumer,
    retryKey: options.retryKey,
    leaseTimeoutMs: options.leaseTimeoutMs,
    blockMs,
    window,
    order,
  });
  const leases = entryLeases({ commands, stream, group, consumer, leaseTimeoutMs: options.leaseTimeoutMs, logger });
  const outcomes = entryOutcomes({
    commands,
    stream,
    group,
    consumer,
    retryKey: options.retryKey,
    deadStream: options.deadStream,
    policy,
    logger,
    order,
    deadLetteredUnattempted: () => reports?.deadLetteredUnattempted?.(),
  });

  /**
   * A sliding window, like the local-file queue's: up to `window` deliveries in flight, each started as
   * its entry is fetched (or, behind another delivery to its webhook, as that one ends), and only as many
   * entries fetched as there are free slots, unless every slot is busy and no entry of an owner with fewer
   * in flight waits here (then one fetch more per round, up to `READ_AHEAD_SLOTS` times the slots, to find one). So a
   * webhook that never answers holds one slot until `push-timeout-ms`, not every other caller's
   * notifications, and an owner's many such webhooks hold the slots only until the next one frees.
   * Entries wait behind a delivery in flight here, or in a parked lane for an older entry of their webhook
   * held by another replica or for its retry; they are held by id, at most `maxWaitingEntries` (plus one
   * fetch, and what they wait for: see there) in all, so memory stays bounded while fetching goes on for
   * the other webhooks.
   */
  async function work(run: PushHandler, connection: Redis): Promise<void> {
    const inFlight = new Map<string, Promise<void>>();
    // Sorted by stream id, so an entry taken over late from a crashed replica goes before the newer ones here.
    const lanes = new WebhookLanes<Fetched>((a, b) => compareEntryIds(a.id, b.id));
    const parked = parkedLanes(lanes, () => startReady());
    const stopRenewing = renewLeasesMeanwhile(leases, options.leaseTimeoutMs, logger);
    let groupReady = false;
    // When each delivery in flight started, the oldest first.
    const startedAt = new Map<string, number>();
    const stuckFor = (): number => {
      const oldest = startedAt.values().next();
      return oldest.done ? 0 : performance.now() - oldest.value;
    };
    const startReady = (): void => {
      while (running && inFlight.size < window) {
        const next = lanes.take();
        if (!next) return;
        const { id, claimed, fields } = next.item;
        const delivery = (fields ? outcomes.handle(run, [id, fields], claimed) : outcomes.handleById(run, id, claimed))
          .then(
            (handling) => {
              // Behind what is ahead in its webhook's line: asked again later, holding no slot, unless what
              // it waits for is in this lane (a retry back as a newer entry), which then goes first.
              if (handling !== 'done') return parked.park(next.lane, { id, claimed }, awaitedEntry(handling.waitsFor));
              parked.went(next.lane);
              leases.finished(id);
              lanes.done(next.lane);
            },
            (error: unknown) => {
              // Left pending: the lease expires and the entry is delivered again.
              logger.error({ err: error, entryId: id }, 'A2A push queue could not record a delivery outcome');
              parked.went(next.lane);
              leases.finished(id);
              lanes.done(next.lane);
            },
          )
          .finally(() => {
            inFlight.delete(id);
            startedAt.delete(id);
            startReady();
          });
        inFlight.set(id, delivery);
        startedAt.set(id, performance.now());
      }
    };
    /**
     * With every slot busy, entries are still read while the slots are held by some owners and no entry of
     * an owner with fewer in flight waits here: the stream is one line for every owner, and another owner's
     * entry behind one owner's backlog must be here to take the next slot that frees (owner-turns.ts).
     */
    // Only while a delivery is stuck, and bounded: entries held here are no other replica's to deliver.
    const readsAhead = (): boolean => lanes.waiting() < readAheadBound && stuckFor() >= READ_AHEAD_AFTER_MS && !lanes.someoneUnderServedWaits();
    const fetched = (entries: StreamEntry[], claimed: boolean): void => {
      for (const [id, fields] of entries) {
        const job = jobOf(fields);
        // A malformed entry has no webhook: a lane of its own, so it is dead-lettered at once.
        const lane = job ? webhookOf(job) : `entry:${id}`;
        // Only the first of a lane keeps its fields: it starts at once; the others wait, by id.
        const first = lanes.queued(lane) === 0;
        leases.taken(id);
        lanes.add(lane, { id, claimed, fields: first ? fields : undefined }, job?.owner ?? lane);
      }
      startReady();
    };
    while (running) {
      try {
        if (!groupReady) {
          await reads.ensureGroup();
          groupReady = true;
        }
        const full = window - inFlight.size <= 0;
        if ((full && !readsAhead()) || lanes.waiting() >= maxWaitingEntries) {
          if (inFlight.size > 0) {
            // Every slot busy: woken when one frees, or when the oldest delivery has run long enough to read ahead.
            const untilStuck = READ_AHEAD_AFTER_MS - stuckFor();
            const wake = full && untilStuck > 0 ? [new Promise((resolve) => setTimeout(resolve, untilStuck).unref())] : [];
            await Promise.race([...inFlight.values(), ...wake]);
          } else {
            // At the bound with nothing in flight every entry held is parked: behind its webhook's retry
            // (bringing it back when due is what helps), or behind an entry this replica does not hold: a
            // crashed replica's, which only a take-over brings back (one fetch past the bound), or a retry
            // brought back, a new entry at the stream's end. New entries are read only for that one, until
            // a replica has read it: holding more while a retry is not due would have no end.
            await reads.promoteDueRetries();
            fetched(
              (await reads.claimStale(window)).filter(([id]) => !leases.holds(id)),
              true,
            );
            const unread = (await reads.anyUnread(parked.awaitedElsewhere())) ? await reads.readNew(connection, window, false) : [];
            fetched(unread, false);
            if (unread.length === 0) await sleep(MAX_PARKED_MS);
          }
          continue;
        }
        await reads.promoteDueRetries();
        // Reading ahead (every slot busy): one fetch's worth, still within the bound on waiting entries.
        const count = full ? Math.min(window, readAheadBound - lanes.waiting()) : window - inFlight.size;
        // An entry of ours still in flight or waiting can look stale to XAUTOCLAIM (its renewal late): it is not taken twice.
        const stale = (await reads.claimStale(count)).filter(([id]) => !leases.holds(id));
        fetched(stale, true);
        // New entries are read every round, stale ones taken over or not: thousands of a crashed replica's
        // entries to one webhook (each waiting, so the slots stay free) must not hold back the others'.
        // Without blocking when stale ones were found, so the rest of those are taken over soon too.
        const free = full ? count : window - inFlight.size;
        if (free > 0 && lanes.waiting() < maxWaitingEntries) fetched(await reads.readNew(connection, free, stale.length === 0), false);
      } catch (error) {
        // NOGROUP: the stream was deleted under us; recreate the group next round.
        if (String((error as Error).message).includes('NOGROUP')) groupReady = false;
        else warnRoundFailed({ err: error, store: 'push-queue' }, 'A2A push queue worker round failed');
        if (running) await new Promise((resolve) => setTimeout(resolve, Math.min(blockMs, 500)));
      }
    }
    // Outcomes of deliveries started are always recorded, even when stop() was called meanwhile. Entries
    // still waiting are not started (each could wait out a slow webhook): once the deliveries ahead of them
    // ended (so another worker cannot overtake those), they are let go of for another worker.
    await Promise.all(inFlight.values());
    parked.clear();
    await stopRenewing();
    await leases.letGo(lanes.drain().map(({ id }) => id));
  }

  return {
    consumer,
    async enqueue(job) {
      await order.enqueue(job);
    },
    async depth() {
      // Acknowledged entries are deleted, so the stream holds exactly the jobs not yet done.
      const [length, retries] = await Promise.all([commands.xlen(stream), commands.zcard(options.retryKey)]);
      return length + retries;
    },
    start(run, told) {
      if (loop) throw new Error('push queue already started');
      reports = told;
      running = true;
      // A blocking read holds its connection; commands of the same round need another one.
      blocking = commands.duplicate();
      watchAnother(blocking);
      loop = work(run, blocking).catch((error: unknown) => logger.error({ err: error }, 'A2A push queue worker stopped'));
    },
    async stop() {
      running = false;
      await loop;
      await Promise.all([blocking, commands].map((connection) => (connection ? closeRedis(connection) : Promise.resolve())));
    },
  };
}

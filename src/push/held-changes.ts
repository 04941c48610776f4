import { randomUUID } from 'node:crypto';
import type { StreamResponse } from '../model/index.js';
import { holdInOrder, type HeldWording, type Offered } from './queue/held-in-order.js';
import { journalMayHoldRecords } from './queue/journal.js';
import type { PushLogger } from './queue/types.js';

/** A task event the watcher accepted for notification: everything needed to turn it into jobs later. */
export interface NoticedChange {
  /** The journal's id of the change while it is held. */
  jobId: string;
  taskId: string;
  event: StreamResponse;
  /** `A2A-Event-Id`: the one given when the change was noticed, whenever its jobs are queued. */
  eventId: string;
  /** The id is derived from the change itself: claimed once per config across replicas and restarts. */
  stable: boolean;
  /** `[owner, config id]` of the configs still due; every config of the task when absent. */
  configs?: Array<[string, string]>;
  /** When the watcher accepted it (epoch ms): orders the notifications of a task whose statuses carry no timestamp. */
  noticedAt?: number;
  /**
   * The id of the caller's message that began the turn the change is of, when known (the send's own stream or answer,
   * a follow of a send, a subscription: the turn at work as it began): tells whether the task read later is still
   * that turn's (turn-of-record.ts) when its status carries no timestamp.
   */
  turnMessageId?: string;
}

export const noticedChange = (fields: Omit<NoticedChange, 'jobId' | 'noticedAt'>, now = Date.now()): NoticedChange => ({
  jobId: randomUUID(),
  noticedAt: now,
  ...fields,
});

/** What could not be resolved of a change because its store was out of reach, and why; undefined once every job is queued. */
export type Unresolved = { rest: NoticedChange; error: unknown } | undefined;

export interface HeldChangesOptions {
  /** Reads the change's configs (and what its payloads need) and queues its jobs. */
  resolve(change: NoticedChange): Promise<Unresolved>;
  logger: PushLogger;
  /** Changes held at most; one more is logged as not pushed. */
  maxHeld?: number;
  /** First wait before the held changes are resolved again; doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** A directory of this replica's own: a held change is on disk (fsynced) before it counts as taken. */
  journalDir?: string;
}

export interface HeldChanges {
  /** Resolves the change now, or holds it: behind changes already held, or when its store is out of reach. */
  notify(change: NoticedChange): Promise<void>;
  held(): number;
  /** Resolves the held changes one last time; those still out of reach stay journaled for the next start. */
  stop(): Promise<void>;
}

const WORDING: HeldWording = {
  journalUnopened: 'A2A push: the journal of held changes cannot be opened; they are held in memory only',
  heldFromBefore: 'A2A push: changes held before the last stop are resolved again',
  notJournaled: 'A2A push: a held change could not be journaled; it is held in memory only',
  holding: {
    journaled: 'A2A push config store out of reach: holding changes (journaled) until it answers',
    inMemory: 'A2A push config store out of reach: holding changes in memory until it answers',
  },
  allTaken: 'A2A push config store answers again: every held change is queued',
  atStop: {
    journaled: 'A2A push config store out of reach at stop: the held changes stay journaled for the next start',
    lost: 'A2A push config store out of reach at stop: the changes held for it are lost',
  },
};

/**
 * The changes noticed while the stores a notification is made from (push configs, and for 0.2.5 the
 * registry, on the shared Redis) cannot answer. The held-jobs queue only outlives an outage of the
 * queue's own writes; a change whose configs cannot be read never gets that far. Such a change is held
 * here instead, in order, and resolved again with backoff once the stores answer, with the event id it
 * was noticed with, so receivers stay idempotent; while any is held, new changes go behind it, so a
 * task's notifications keep their order. Claims are made only when a change is resolved, just before
 * its job is queued, as for a change resolved at once.
 */
export function holdWhileUnanswered(options: HeldChangesOptions): HeldChanges {
  const { logger, resolve } = options;
  // Read before the journal is opened, which rewrites it.
  const fromBefore = options.journalDir !== undefined && journalMayHoldRecords(options.journalDir);
  const held = holdInOrder<NoticedChange>({
    logger,
    maxHeld: options.maxHeld,
    retryMs: options.retryMs,
    maxRetryMs: options.maxRetryMs,
    journalDir: options.journalDir,
    wording: WORDING,
    offer: resolveHeld,
    whenFull: (change, count) =>
      logger.error(
        { taskId: change.taskId, eventId: change.eventId, held: count.held },
        'A2A push: the config store is out of reach and too many changes are held already; this one is not pushed',
      ),
  });

  /** Resolves a held change again; one that fails for another reason than its store's outage is logged and let go. */
  async function resolveHeld(change: NoticedChange): Promise<Offered<NoticedChange>> {
    let unresolved: Unresolved;
    try {
      unresolved = await resolve(change);
    } catch (error) {
      logger.error({ err: error, taskId: change.taskId, eventId: change.eventId }, 'A2A push: a held change could not be pushed');
    }
    // Taken, it leaves the journal; a crash before that resolves it again: its claims make that a no-op for stable ids.
    return unresolved ? { taken: false, rest: unresolved.rest } : { taken: true };
  }

  return {
    held: held.held,
    async notify(change) {
      // Opening the journal costs fsyncs: a change waits for it only when changes from before may be in it.
      if (fromBefore) await held.ready;
      // Behind the held ones, or it would overtake an earlier change of its task.
      if (!held.stopped() && held.newItemsWait()) {
        await held.ready;
        return held.hold(change);
      }
      const unresolved = await resolve(change);
      if (!unresolved) return;
      await held.ready;
      if (held.stopped()) {
        logger.error({ err: unresolved.error, taskId: change.taskId, eventId: change.eventId }, 'A2A push: a change noticed at stop is not pushed');
        return;
      }
      await held.holdRefused(unresolved.rest, { err: unresolved.error, taskId: change.taskId, eventId: change.eventId });
    },
    stop: () => held.stop(),
  };
}

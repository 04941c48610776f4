import { randomUUID } from 'node:crypto';
import type { StreamResponse } from '../model/index.js';
import { Journal, journalMayHoldRecords } from './queue/journal.js';
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
}

export const noticedChange = (fields: Omit<NoticedChange, 'jobId'>): NoticedChange => ({ jobId: randomUUID(), ...fields });

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

const DEFAULTS = { maxHeld: 10_000, retryMs: 500, maxRetryMs: 10_000 };

async function openJournal(dir: string | undefined, logger: PushLogger) {
  if (dir === undefined) return undefined;
  try {
    return await Journal.open<NoticedChange>(dir);
  } catch (error) {
    logger.error({ err: error }, 'A2A push: the journal of held changes cannot be opened; they are held in memory only');
    return undefined;
  }
}

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
  const maxHeld = options.maxHeld ?? DEFAULTS.maxHeld;
  const retryMs = options.retryMs ?? DEFAULTS.retryMs;
  const maxRetryMs = options.maxRetryMs ?? DEFAULTS.maxRetryMs;
  const held: NoticedChange[] = [];
  let wait = retryMs;
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let stopped = false;
  const pendingAtStart = options.journalDir !== undefined && journalMayHoldRecords(options.journalDir);
  // Changes still journaled from before a stop or a crash are older than any new one: they go first.
  const ready = openJournal(options.journalDir, logger).then((opened) => {
    if (opened && opened.pending.length > 0) {
      held.push(...opened.pending);
      logger.warn({ held: held.length }, 'A2A push: changes held before the last stop are resolved again');
      schedule();
    }
    return opened?.journal;
  });

  async function hold(change: NoticedChange, journal: Journal<NoticedChange> | undefined): Promise<void> {
    if (held.length >= maxHeld) {
      logger.error(
        { taskId: change.taskId, eventId: change.eventId, held: held.length },
        'A2A push: the config store is out of reach and too many changes are held already; this one is not pushed',
      );
      return;
    }
    held.push(change);
    try {
      await journal?.append({ t: 'enqueue', job: change });
    } catch (error) {
      logger.warn({ err: error, taskId: change.taskId }, 'A2A push: a held change could not be journaled; it is held in memory only');
    }
  }

  /** Resolves the held changes in order; stops at the first one still out of reach. True when one was. */
  async function resolveHeld(): Promise<boolean> {
    const journal = await ready;
    while (held.length > 0) {
      const change = held[0]!;
      let unresolved: Unresolved;
      try {
        unresolved = await resolve(change);
      } catch (error) {
        logger.error({ err: error, taskId: change.taskId, eventId: change.eventId }, 'A2A push: a held change could not be pushed');
      }
      if (unresolved) {
        // Some of its configs may be queued now: only the rest is resolved again, after a restart too.
        held[0] = unresolved.rest;
        await journal?.append({ t: 'retry', job: unresolved.rest }).catch(() => undefined);
        return true;
      }
      held.shift();
      // A crash before this is on disk resolves the change again: its claims make that a no-op for stable ids.
      await journal?.append({ t: 'ack', jobId: change.jobId }).catch(() => undefined);
    }
    await journal?.compact().catch(() => undefined);
    return false;
  }

  function schedule(): void {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      flushing = resolveHeld().then((refused) => {
        flushing = undefined;
        if (held.length === 0) {
          logger.warn({}, 'A2A push config store answers again: every held change is queued');
          wait = retryMs;
          return;
        }
        if (refused) wait = Math.min(wait * 2, maxRetryMs);
        schedule();
      });
    }, wait);
    timer.unref();
  }

  return {
    held: () => held.length,
    async notify(change) {
      // Opening the journal costs fsyncs: a change waits for it only when changes from before may be in it.
      if (pendingAtStart) await ready;
      // Behind the held ones, or it would overtake an earlier change of its task.
      if (!stopped && (held.length > 0 || flushing)) return hold(change, await ready);
      const unresolved = await resolve(change);
      if (!unresolved) return;
      const journal = await ready;
      if (stopped) {
        logger.error({ err: unresolved.error, taskId: change.taskId, eventId: change.eventId }, 'A2A push: a change noticed at stop is not pushed');
        return;
      }
      await hold(unresolved.rest, journal);
      logger.warn(
        { err: unresolved.error, taskId: change.taskId, eventId: change.eventId },
        journal
          ? 'A2A push config store out of reach: holding changes (journaled) until it answers'
          : 'A2A push config store out of reach: holding changes in memory until it answers',
      );
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await flushing;
      const journal = await ready;
      if (held.length > 0 && (await resolveHeld())) {
        if (journal)
          logger.warn({ held: held.length }, 'A2A push config store out of reach at stop: the held changes stay journaled for the next start');
        else logger.error({ lost: held.length }, 'A2A push config store out of reach at stop: the changes held for it are lost');
        held.length = 0;
      }
      await journal?.close();
    },
  };
}

import { Journal, type Journaled } from './journal.js';
import type { PushLogger } from './types.js';

/** What became of a held item offered again: taken, or refused; `rest` is what is still to hold when part of it was taken. */
export type Offered<T> = { taken: true } | { taken: false; rest?: T };

/** The log lines of a holder, in the words of what it holds: each says what is held and what it waits for. */
export interface HeldWording {
  /** error: the journal cannot be opened, so items are held in memory only. */
  journalUnopened: string;
  /** warn, with `held`: items journaled before the last stop are offered again. */
  heldFromBefore: string;
  /** warn, with the item's `taskId`: one held item could not be journaled. */
  notJournaled: string;
  /** warn, with the caller's fields: an item was refused and is held from now on. */
  holding: { journaled: string; inMemory: string };
  /** warn: every held item is taken again. */
  allTaken: string;
  /** At stop with items still refused: warn with `held` when they stay journaled, error with `lost` when not. */
  atStop: { journaled: string; lost: string };
}

export interface HeldInOrderOptions<T> {
  /** Offers one held item again; never rejects (an item that fails for good counts as taken). */
  offer(item: T): Promise<Offered<T>>;
  /** Called instead of holding once `maxHeld` items are held: throw to refuse the item to its caller, or return to drop it. */
  whenFull(item: T, count: { held: number; maxHeld: number }): void;
  wording: HeldWording;
  logger: PushLogger;
  maxHeld?: number;
  /** First wait before the held items are offered again; doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** A directory of this replica's own: a held item is on disk (fsynced) before `hold` returns, and read back at start. */
  journalDir?: string;
  /**
   * At stop with nothing held, rewrite the journal anyway (held jobs do; held changes skip the fsyncs).
   * Kept as each holder had it: the journal is already compact then unless a write to it failed.
   */
  rewriteEmptyJournalAtStop?: boolean;
}

export interface HeldInOrder<T> {
  /** Settles once the journal is open (or known to be unavailable) and what it held from before is held first. */
  readonly ready: Promise<void>;
  held(): number;
  stopped(): boolean;
  /** Whether a new item must go behind the held ones (some are held, or being offered again), so it overtakes none. */
  newItemsWait(): boolean;
  /** Holds the item behind the others, journaled when there is a journal; call once `ready` settled. */
  hold(item: T): Promise<void>;
  /** Holds an item just refused, logs why with `logFields`, and starts offering the held items again. */
  holdRefused(item: T, logFields: object): Promise<void>;
  /** Offers the held items one last time; those still refused stay journaled, or are logged as lost without a journal. */
  stop(): Promise<void>;
}

const DEFAULTS = { maxHeld: 10_000, retryMs: 500, maxRetryMs: 10_000 };

async function openJournal<T extends Journaled>(dir: string | undefined, logger: PushLogger, wording: HeldWording) {
  if (dir === undefined) return undefined;
  try {
    return await Journal.open<T>(dir, logger);
  } catch (error) {
    logger.error({ err: error }, wording.journalUnopened);
    return undefined;
  }
}

/**
 * Items (queue jobs, noticed changes) that what takes them refuses while its store is out of reach:
 * held in order, offered again with a doubling backoff until taken, at most `maxHeld` of them. The
 * first one still refused stops a round, so they are taken in the order they came. With a journal,
 * a held item is on disk before `hold` returns and leaves it once taken; what it still holds at start
 * (after a stop or a crash during an outage) is held before anything new.
 */
export function holdInOrder<T extends Journaled & { taskId: string }>(options: HeldInOrderOptions<T>): HeldInOrder<T> {
  const { logger, wording } = options;
  const maxHeld = options.maxHeld ?? DEFAULTS.maxHeld;
  const retryMs = options.retryMs ?? DEFAULTS.retryMs;
  const maxRetryMs = options.maxRetryMs ?? DEFAULTS.maxRetryMs;
  const held: T[] = [];
  let journal: Journal<T> | undefined;
  let wait = retryMs;
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let stopped = false;
  // Items still journaled from before are older than any new one: they go first.
  const ready = openJournal<T>(options.journalDir, logger, wording).then((opened) => {
    journal = opened?.journal;
    if (opened && opened.pending.length > 0) {
      held.push(...opened.pending);
      logger.warn({ held: held.length }, wording.heldFromBefore);
      schedule();
    }
  });

  async function hold(item: T): Promise<void> {
    if (held.length >= maxHeld) return options.whenFull(item, { held: held.length, maxHeld });
    held.push(item);
    try {
      await journal?.append({ t: 'enqueue', job: item });
    } catch (error) {
      logger.warn({ err: error, taskId: item.taskId }, wording.notJournaled);
    }
  }

  /** Offers the held items in order; stops at the first refusal. True when one was refused. */
  async function offerHeld(): Promise<boolean> {
    await ready;
    while (held.length > 0) {
      const item = held[0]!;
      const offered = await options.offer(item);
      if (!offered.taken) {
        if (offered.rest !== undefined) {
          // Part of it is done now: only the rest is offered again, after a restart too.
          held[0] = offered.rest;
          await journal?.append({ t: 'retry', job: offered.rest }).catch(() => undefined);
        }
        return true;
      }
      held.shift();
      // A crash before this line is on disk offers the item again at start: a duplicate, never a loss.
      await journal?.append({ t: 'ack', jobId: item.jobId }).catch(() => undefined);
    }
    await journal?.compact().catch(() => undefined);
    return false;
  }

  function schedule(): void {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      flushing = offerHeld().then((refused) => {
        flushing = undefined;
        // An item held after the last offer (while this promise settled) is offered in the next round.
        if (held.length === 0) {
          logger.warn({}, wording.allTaken);
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
    ready,
    held: () => held.length,
    stopped: () => stopped,
    newItemsWait: () => held.length > 0 || flushing !== undefined,
    hold,
    async holdRefused(item, logFields) {
      await hold(item);
      logger.warn(logFields, journal ? wording.holding.journaled : wording.holding.inMemory);
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await flushing;
      await ready;
      if ((held.length > 0 || options.rewriteEmptyJournalAtStop) && (await offerHeld())) {
        if (journal) logger.warn({ held: held.length }, wording.atStop.journaled);
        else logger.error({ lost: held.length }, wording.atStop.lost);
        held.length = 0;
      }
      await journal?.close();
    },
  };
}

import { Journal } from './journal.js';
import type { PushJob, PushLogger, PushQueue } from './types.js';

export interface HeldJobsOptions {
  logger: PushLogger;
  /** Jobs held at most while the queue cannot be reached; one more is refused (the caller logs it as lost). */
  maxHeld?: number;
  /** First wait before a held job is offered again; doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /**
   * A directory of this replica's own where held jobs are journaled (fsynced) before `enqueue` returns,
   * and read back at start: a stop or a crash during the outage does not lose them.
   */
  journalDir?: string;
}

const DEFAULTS = { maxHeld: 10_000, retryMs: 500, maxRetryMs: 10_000 };

/** The journal of held jobs, or undefined (memory only) when none is asked for or it cannot be opened. */
async function openHeldJournal(dir: string | undefined, logger: PushLogger): Promise<{ journal: Journal; pending: PushJob[] } | undefined> {
  if (dir === undefined) return undefined;
  try {
    return await Journal.open(dir);
  } catch (error) {
    logger.error({ err: error }, 'A2A push: the journal of held notifications cannot be opened; they are held in memory only');
    return undefined;
  }
}

/**
 * A queue whose `enqueue` outlives a passing outage of the queue's store (Redis restarting or out of
 * reach): a job the store refuses is held, in order, and offered again with backoff until the store
 * takes it. While any job is held, new jobs queue up behind it, so a task's notifications keep their
 * order. With `journalDir`, a held job is on disk before `enqueue` returns and leaves the journal once
 * the store took it; jobs the journal still holds at start (after a stop or a crash during an outage)
 * are offered first. Without it they are in this process only: `stop` offers them one last time and
 * logs, as lost, those the store still refuses; a crash loses them unlogged.
 */
export function holdWhileUnreachable(queue: PushQueue, options: HeldJobsOptions): PushQueue & { held(): number } {
  const { logger } = options;
  const maxHeld = options.maxHeld ?? DEFAULTS.maxHeld;
  const retryMs = options.retryMs ?? DEFAULTS.retryMs;
  const maxRetryMs = options.maxRetryMs ?? DEFAULTS.maxRetryMs;
  const held: PushJob[] = [];
  let wait = retryMs;
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let stopped = false;
  // Jobs still journaled from before are older than any new one: they go first.
  const ready = openHeldJournal(options.journalDir, logger).then((opened) => {
    if (opened && opened.pending.length > 0) {
      held.push(...opened.pending);
      logger.warn({ held: held.length }, 'A2A push: notifications held before the last stop are offered to the queue again');
      schedule();
    }
    return opened?.journal;
  });

  async function hold(job: PushJob, journal: Journal | undefined): Promise<void> {
    if (held.length >= maxHeld) throw new Error(`the push queue is out of reach and ${maxHeld} notifications are already held`);
    held.push(job);
    try {
      await journal?.append({ t: 'enqueue', job });
    } catch (error) {
      logger.warn({ err: error, taskId: job.taskId }, 'A2A push: a held notification could not be journaled; it is held in memory only');
    }
  }

  /** Offers the held jobs in order; stops at the first refusal. True when the queue refused one. */
  async function offerHeld(): Promise<boolean> {
    const journal = await ready;
    while (held.length > 0) {
      const job = held[0]!;
      try {
        await queue.enqueue(job);
      } catch {
        return true;
      }
      held.shift();
      // A crash before this line is on disk offers the job again at start: a duplicate, never a loss.
      await journal?.append({ t: 'ack', jobId: job.jobId }).catch(() => undefined);
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
        // A job held after the last offer (while this promise settled) is offered in the next round.
        if (held.length === 0) {
          logger.warn({}, 'A2A push queue reachable again: every held notification is queued');
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
    async enqueue(job) {
      const journal = await ready;
      if (stopped) return queue.enqueue(job);
      // Behind the held ones, or it would overtake an earlier notification of its task.
      if (held.length > 0 || flushing) return hold(job, journal);
      try {
        await queue.enqueue(job);
      } catch (error) {
        await hold(job, journal);
        logger.warn(
          { err: error, taskId: job.taskId, configId: job.configId },
          journal
            ? 'A2A push queue out of reach: holding notifications (journaled) until it is back'
            : 'A2A push queue out of reach: holding notifications in memory until it is back',
        );
        schedule();
      }
    },
    start: (handler) => queue.start(handler),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await flushing;
      const journal = await ready;
      if (await offerHeld()) {
        if (journal)
          logger.warn({ held: held.length }, 'A2A push queue out of reach at stop: the held notifications stay journaled for the next start');
        else logger.error({ lost: held.length }, 'A2A push queue out of reach at stop: the notifications held for it are lost');
        held.length = 0;
      }
      await journal?.close();
      await queue.stop();
    },
    ...(queue.depth ? { depth: async () => held.length + (await queue.depth!().catch(() => 0)) } : {}),
  };
}

import { holdInOrder, type HeldWording, type Offered } from './held-in-order.js';
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

const WORDING: HeldWording = {
  journalUnopened: 'A2A push: the journal of held notifications cannot be opened; they are held in memory only',
  heldFromBefore: 'A2A push: notifications held before the last stop are offered to the queue again',
  notJournaled: 'A2A push: a held notification could not be journaled; it is held in memory only',
  holding: {
    journaled: 'A2A push queue out of reach: holding notifications (journaled) until it is back',
    inMemory: 'A2A push queue out of reach: holding notifications in memory until it is back',
  },
  allTaken: 'A2A push queue reachable again: every held notification is queued',
  atStop: {
    journaled: 'A2A push queue out of reach at stop: the held notifications stay journaled for the next start',
    lost: 'A2A push queue out of reach at stop: the notifications held for it are lost',
  },
};

const TAKEN: Offered<PushJob> = { taken: true };
const REFUSED: Offered<PushJob> = { taken: false };

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
  const held = holdInOrder<PushJob>({
    logger: options.logger,
    maxHeld: options.maxHeld,
    retryMs: options.retryMs,
    maxRetryMs: options.maxRetryMs,
    journalDir: options.journalDir,
    wording: WORDING,
    offer: (job) =>
      queue.enqueue(job).then(
        () => TAKEN,
        () => REFUSED,
      ),
    // Thrown to `enqueue`'s caller, which logs the job as not queued.
    whenFull: (_job, { maxHeld }) => {
      throw new Error(`the push queue is out of reach and ${maxHeld} notifications are already held`);
    },
    rewriteEmptyJournalAtStop: true,
  });

  return {
    held: held.held,
    async enqueue(job) {
      await held.ready;
      if (held.stopped()) return queue.enqueue(job);
      // Behind the held ones, or it would overtake an earlier notification of its task.
      if (held.newItemsWait()) return held.hold(job);
      try {
        await queue.enqueue(job);
      } catch (error) {
        await held.holdRefused(job, { err: error, taskId: job.taskId, configId: job.configId });
      }
    },
    start: (handler, reports) => queue.start(handler, reports),
    async stop() {
      await held.stop();
      await queue.stop();
    },
    ...(queue.depth ? { depth: async () => held.held() + (await queue.depth!().catch(() => 0)) } : {}),
  };
}

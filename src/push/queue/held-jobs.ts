import type { PushJob, PushLogger, PushQueue } from './types.js';

export interface HeldJobsOptions {
  logger: PushLogger;
  /** Jobs held at most while the queue cannot be reached; one more is refused (the caller logs it as lost). */
  maxHeld?: number;
  /** First wait before a held job is offered again; doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
}

const DEFAULTS = { maxHeld: 10_000, retryMs: 500, maxRetryMs: 10_000 };

/**
 * A queue whose `enqueue` outlives a passing outage of the queue's store (Redis restarting or out of
 * reach): a job the store refuses is held in memory, in order, and offered again with backoff until the
 * store takes it. While any job is held, new jobs queue up behind it, so a task's notifications keep
 * their order. Held jobs are in this process only: `stop` offers them one last time and logs, as lost,
 * those the store still refuses; a crash loses them unlogged.
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

  function hold(job: PushJob): void {
    if (held.length >= maxHeld) throw new Error(`the push queue is out of reach and ${maxHeld} notifications are already held`);
    held.push(job);
  }

  /** Offers the held jobs in order; stops at the first refusal. True when the queue refused one. */
  async function offerHeld(): Promise<boolean> {
    while (held.length > 0) {
      try {
        await queue.enqueue(held[0]!);
      } catch {
        return true;
      }
      held.shift();
    }
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
      if (stopped) return queue.enqueue(job);
      // Behind the held ones, or it would overtake an earlier notification of its task.
      if (held.length > 0 || flushing) return hold(job);
      try {
        await queue.enqueue(job);
      } catch (error) {
        hold(job);
        logger.warn(
          { err: error, taskId: job.taskId, configId: job.configId },
          'A2A push queue out of reach: holding notifications in memory until it is back',
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
      if (await offerHeld()) {
        logger.error({ lost: held.length }, 'A2A push queue out of reach at stop: the notifications held for it are lost');
        held.length = 0;
      }
      await queue.stop();
    },
    ...(queue.depth ? { depth: async () => held.length + (await queue.depth!().catch(() => 0)) } : {}),
  };
}

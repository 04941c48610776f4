import { Journal } from './journal.js';
import { DEFAULT_RETRY_POLICY, dispose, runHandler, type RetryPolicy } from './retry-policy.js';
import { silentLogger, type PushHandler, type PushJob, type PushLogger, type PushQueue } from './types.js';
import { WebhookLanes, webhookOf } from './webhook-lanes.js';
import { withFields } from '../../model/index.js';
import { MAX_TIMER_MS } from '../../timed-signal.js';

export interface LocalFileQueueOptions {
  /** `<persistence-dir>/push`. */
  dir: string;
  retry?: Partial<RetryPolicy>;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** Compact once the journal has at least this many lines and fewer than half describe live jobs. */
  compactMinLines?: number;
  logger?: PushLogger;
}

/**
 * The default queue: single process, durable across restarts. Every state change is a journal line
 * fsynced before it counts; on start the journal is replayed, so jobs that were queued, in flight or
 * waiting for a retry when the process stopped (or died) are delivered after the restart.
 * Jobs are attempted in enqueue order, at most one at a time per webhook (webhook-lanes.ts): a job
 * whose webhook still has a delivery in flight waits behind it while other webhooks' jobs go ahead.
 * Retries wait on a timer until due, then go behind what their webhook has waiting.
 */
export function createLocalFileQueue(options: LocalFileQueueOptions): PushQueue {
  const policy: RetryPolicy = withFields(DEFAULT_RETRY_POLICY, options.retry);
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const compactMinLines = options.compactMinLines ?? 1_000;
  const logger = options.logger ?? silentLogger;

  const due = new WebhookLanes<PushJob>();
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let handler: PushHandler | undefined;
  let stopped = false;
  let compacting: Promise<void> | undefined;

  const ready: Promise<Journal> = Journal.open(options.dir).then(({ journal, pending }) => {
    for (const job of pending.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt)) schedule(job);
    return journal;
  });
  // Surfaced by enqueue/stop; an unobserved rejection must not crash the process meanwhile.
  ready.catch((error: unknown) => logger.error({ err: error }, 'A2A push queue journal could not be opened'));

  function schedule(job: PushJob): void {
    if (stopped) return;
    const wait = job.nextAttemptAt - Date.now();
    if (wait <= 0) {
      due.add(webhookOf(job), job);
      pump();
      return;
    }
    const timer = setTimeout(
      () => {
        timers.delete(job.jobId);
        due.add(webhookOf(job), job);
        pump();
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    timers.set(job.jobId, timer);
  }

  function pump(): void {
    while (handler && !stopped && inFlight.size < concurrency) {
      const next = due.take();
      if (!next) return;
      const run: Promise<void> = attempt(handler, next.item).finally(() => {
        inFlight.delete(run);
        due.done(next.lane);
        pump();
      });
      inFlight.add(run);
    }
  }

  async function attempt(run: PushHandler, job: PushJob): Promise<void> {
    const result = await runHandler(run, job);
    const journal = await ready;
    const next = dispose(job, result, policy);
    try {
      if (next.kind === 'ack') {
        await journal.append({ t: 'ack', jobId: job.jobId });
      } else if (next.kind === 'retry') {
        await journal.append({ t: 'retry', job: next.job });
        schedule(next.job);
      } else {
        await journal.deadLetter(next.job, next.reason);
        logger.error(
          { jobId: job.jobId, taskId: job.taskId, configId: job.configId, attempts: next.job.attempt, reason: next.reason },
          'A2A push notification dead-lettered',
        );
      }
    } catch (error) {
      // The outcome is not durable: after a restart the job is attempted again (at-least-once).
      logger.error({ err: error, jobId: job.jobId }, 'A2A push queue could not record a delivery outcome');
    }
    if (!compacting && journal.shouldCompact(compactMinLines)) {
      compacting = journal
        .compact()
        .catch((error: unknown) => logger.warn({ err: error }, 'A2A push queue compaction failed'))
        .finally(() => {
          compacting = undefined;
        });
    }
  }

  return {
    async enqueue(job) {
      if (stopped) throw new Error('push queue is stopped');
      const journal = await ready;
      await journal.append({ t: 'enqueue', job });
      schedule(job);
    },
    depth: async () => due.waiting() + timers.size + inFlight.size,
    start(next) {
      if (handler) throw new Error('push queue already started');
      handler = next;
      pump();
    },
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      await compacting;
      const journal = await ready.catch(() => undefined);
      await journal?.close();
    },
  };
}

import { Journal } from './journal.js';
import { DEFAULT_RETRY_POLICY, dispose, runHandler, type RetryPolicy } from './retry-policy.js';
import { silentLogger, type PushHandler, type PushJob, type PushLogger, type PushQueue } from './types.js';
import { WebhookLanes, webhookOf } from './webhook-lanes.js';
import { webhookOrigin } from './webhook-origin.js';
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
 * The slots are shared between owners: a slot that frees goes to the owner with the fewest deliveries in
 * flight, so one owner's webhooks that never answer delay another owner's by one `push-timeout-ms` at most.
 * A job that failed keeps its place at the head of its webhook's lane until it is delivered or
 * dead-lettered: the lane waits on a timer for its retry (holding no slot), so the receiver of an outage
 * gets its notifications in the order they were noticed, not the order their retries fall due.
 */
export function createLocalFileQueue(options: LocalFileQueueOptions): PushQueue {
  const policy: RetryPolicy = withFields(DEFAULT_RETRY_POLICY, options.retry);
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const compactMinLines = options.compactMinLines ?? 1_000;
  const logger = options.logger ?? silentLogger;

  const due = new WebhookLanes<PushJob>();
  /** Lanes whose first job waits for its retry, each woken by its timer when the job is due. */
  const wakeTimers = new Map<string, NodeJS.Timeout>();
  /** Retries out of their webhook's line, each until it is due. */
  const retryTimers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let handler: PushHandler | undefined;
  let stopped = false;
  let compacting: Promise<void> | undefined;

  let damaged = 0;
  const ready: Promise<Journal> = Journal.open(options.dir, logger).then((opened) => {
    const { journal, pending } = opened;
    damaged = opened.damaged;
    // In the order they were queued (a retry keeps its job's place in the journal): a job waiting for its
    // retry holds its webhook's later ones behind it after a restart too, unless that retry had left the line
    // (as every retry did in a journal of the release before keepsPlace).
    for (const job of pending) {
      if (job.keepsPlace === false || (job.keepsPlace === undefined && job.attempt > 0)) addWhenDue(job);
      else add(job);
    }
    return journal;
  });
  // Surfaced by enqueue/stop; an unobserved rejection must not crash the process meanwhile.
  ready.catch((error: unknown) => logger.error({ err: error }, 'A2A push queue journal could not be opened'));

  function add(job: PushJob): void {
    if (stopped) return;
    due.add(webhookOf(job), job, job.owner);
    pump();
  }

  /** The lane's first job (taken, not started) is not due yet: the lane hands out nothing until it is. */
  function holdUntilDue(lane: string, job: PushJob): void {
    due.putBack(lane, job);
    // Stopped: nothing is handed out any more, and the journal has the job for the next start.
    if (stopped) return;
    const timer = setTimeout(
      () => {
        wakeTimers.delete(lane);
        due.wake(lane);
        pump();
      },
      Math.min(Math.max(0, job.nextAttemptAt - Date.now()), MAX_TIMER_MS),
    );
    wakeTimers.set(lane, timer);
  }

  function pump(): void {
    while (handler && !stopped && inFlight.size < concurrency) {
      const next = due.take();
      if (!next) return;
      if (next.item.nextAttemptAt > Date.now()) {
        holdUntilDue(next.lane, next.item);
        continue;
      }
      const tried = attempt(handler, next.item).catch(() => undefined);
      const run: Promise<void> = tried.then((retry) => {
        inFlight.delete(run);
        // Its lane stays held until it is due, so nothing of its webhook goes between this attempt and the next.
        if (retry?.keepsPlace) holdUntilDue(next.lane, retry);
        else {
          due.done(next.lane);
          if (retry) addWhenDue(retry);
        }
        pump();
      });
      inFlight.add(run);
    }
  }

  /** A retry out of its webhook's line (retryKeepsPlace): back at the line's end once it is due. */
  function addWhenDue(job: PushJob): void {
    if (stopped) return;
    const timer = setTimeout(
      () => {
        retryTimers.delete(timer);
        add(job);
      },
      Math.min(Math.max(0, job.nextAttemptAt - Date.now()), MAX_TIMER_MS),
    );
    retryTimers.add(timer);
  }

  /** Attempts the job and records the outcome; returns the job to retry (its `keepsPlace` journaled too), if it is to be. */
  async function attempt(run: PushHandler, job: PushJob): Promise<PushJob | undefined> {
    const result = await runHandler(run, job);
    const journal = await ready;
    const next = dispose(job, result, policy);
    try {
      if (next.kind === 'ack') {
        await journal.append({ t: 'ack', jobId: job.jobId });
      } else if (next.kind === 'retry') {
        await journal.append({ t: 'retry', job: next.job });
      } else {
        await journal.deadLetter(next.job, next.reason);
        logger.error(
          {
            jobId: job.jobId,
            taskId: job.taskId,
            configId: job.configId,
            webhook: webhookOrigin(job.url),
            attempts: next.job.attempt,
            reason: next.reason,
          },
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
    return next.kind === 'retry' ? next.job : undefined;
  }

  return {
    async enqueue(job) {
      if (stopped) throw new Error('push queue is stopped');
      const journal = await ready;
      await journal.append({ t: 'enqueue', job });
      add(job);
    },
    depth: async () => due.waiting() + retryTimers.size + inFlight.size,
    start(next, reports) {
      if (handler) throw new Error('push queue already started');
      handler = next;
      pump();
      // A damaged journal line is a notification dropped unattempted: counted as the Redis queue counts an entry holding no job.
      void ready.then(
        () => {
          for (let line = 0; line < damaged; line++) reports?.deadLetteredUnattempted?.();
        },
        () => undefined,
      );
    },
    async stop() {
      stopped = true;
      for (const timer of [...wakeTimers.values(), ...retryTimers]) clearTimeout(timer);
      wakeTimers.clear();
      retryTimers.clear();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      await compacting;
      const journal = await ready.catch(() => undefined);
      await journal?.close();
    },
  };
}

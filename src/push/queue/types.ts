import { randomUUID } from 'node:crypto';

/**
 * One delivery of one task event to one registered callback. It carries no secrets: auth headers
 * are resolved from the config store at dispatch, so a queue (file or Redis) never holds credentials,
 * and a rotated or deleted credential takes effect for jobs already queued.
 */
export interface PushJob {
  jobId: string;
  /** Identifies the task event; receivers deduplicate on it (delivery is at-least-once). */
  eventId: string;
  taskId: string;
  configId: string;
  /** Principal that registered the config. */
  owner: string;
  url: string;
  /** The serialized request body. */
  payload: string;
  contentType: string;
  /** Non-secret headers to send as they are. */
  headers: Record<string, string>;
  /** Attempts made so far. */
  attempt: number;
  /** Epoch milliseconds before which the job must not be attempted. */
  nextAttemptAt: number;
  lastError?: string;
  /**
   * When the task state the job reports came about (epoch ms, stale-notifications.ts): a job older than
   * one already delivered to its config is dropped. Absent for a job that reports no state.
   */
  stateAt?: number;
  /** When the gateway noticed the event (epoch ms), for every job, states or not. */
  noticedAt?: number;
  /** An earlier attempt was given up after its request went out: the receiver may have it already. */
  mayHaveArrived?: boolean;
  /**
   * Set at each retry (retryKeepsPlace): whether this retry keeps its place at the head of its webhook's
   * line (true) or left it, its last attempt having maybe arrived (false). Absent before a first retry and
   * on a retry scheduled by a version that did not record it. Not `mayHaveArrived`, which an earlier attempt
   * may have set: a retry refused since keeps its place.
   */
  keepsPlace?: boolean;
}

export type DeliveryOutcome =
  /** 2xx: done. */
  | 'delivered'
  /** A transient failure: try again later. */
  | 'retry'
  /** Will never succeed (policy rejection, 3xx, most 4xx): dead-letter now. */
  | 'permanent'
  /** Nothing to deliver any more (the config was deleted): drop without dead-lettering. */
  | 'skipped';

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** Why it failed; never contains a secret. */
  error?: string;
  /** A failure after the request went out (given up at `push-timeout-ms`): the receiver may have it all the same. */
  mayHaveArrived?: boolean;
}

export type PushHandler = (job: PushJob) => Promise<DeliveryResult>;

/** What a queue tells besides the handler's results: what it did to a job on its own. */
export interface PushQueueReports {
  /**
   * A job it dead-lettered without attempting it (redis-streams: a lease that expired too often, an entry
   * that holds no job; local-file: a damaged journal line, dropped at start with what it held): given up on like an
   * attempt refused for good, so counted with those.
   */
  deadLetteredUnattempted?(): void;
}

export interface PushQueue {
  /** Resolves once the job is durable (fsynced to the journal, or written to Redis). */
  enqueue(job: PushJob): Promise<void>;
  /** Starts the worker loop; the handler's result decides ack, retry or dead letter. */
  start(handler: PushHandler, reports?: PushQueueReports): void;
  /** Stops taking jobs, waits for the ones in flight, releases files and connections. */
  stop(): Promise<void>;
  /** Jobs waiting (due or for a retry) or in flight, for the queue-depth metric. */
  depth?(): Promise<number>;
}

export interface NewPushJob {
  eventId: string;
  taskId: string;
  configId: string;
  owner: string;
  url: string;
  payload: string;
  contentType?: string;
  headers?: Record<string, string>;
  stateAt?: number;
  noticedAt?: number;
}

export function newPushJob(fields: NewPushJob, now = Date.now()): PushJob {
  return {
    jobId: randomUUID(),
    eventId: fields.eventId,
    taskId: fields.taskId,
    configId: fields.configId,
    owner: fields.owner,
    url: fields.url,
    payload: fields.payload,
    contentType: fields.contentType ?? 'application/json',
    headers: fields.headers ?? {},
    attempt: 0,
    nextAttemptAt: now,
    ...(fields.stateAt !== undefined ? { stateAt: fields.stateAt } : {}),
    ...(fields.noticedAt !== undefined ? { noticedAt: fields.noticedAt } : {}),
  };
}

/** Minimal logger shape (pino's Logger satisfies it). */
export interface PushLogger {
  debug?(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const silentLogger: PushLogger = { info() {}, warn() {}, error() {} };

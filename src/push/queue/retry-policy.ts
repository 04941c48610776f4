import type { DeliveryResult, PushJob } from './types.js';
import { withFields } from '../../model/index.js';

export interface RetryPolicy {
  initialDelayMs: number;
  multiplier: number;
  maxDelayMs: number;
  /** Fraction of the delay added or removed at random (0.2 = ±20 %), so retries of one outage spread out. */
  jitter: number;
  /** `push-max-attempts`: attempts in all, the first one included. */
  maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  initialDelayMs: 1_000,
  multiplier: 2,
  maxDelayMs: 60_000,
  jitter: 0.2,
  maxAttempts: 10,
};

/** Delay before the next attempt after `failedAttempts` failures (1 = the first attempt failed). */
export function retryDelayMs(policy: RetryPolicy, failedAttempts: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** Math.max(0, failedAttempts - 1));
  const jittered = base * (1 + policy.jitter * (2 * random() - 1));
  return Math.max(0, Math.round(jittered));
}

/** Whether a job's failed attempt was its last (`push-max-attempts` in all): a failure for now is then given up on too. */
export const wasLastAttempt = (job: PushJob, maxAttempts: number): boolean => job.attempt + 1 >= maxAttempts;

/**
 * What an attempt counts as (`a2a_bridge_push_deliveries_total`): its result's outcome, but a failure for now on the
 * job's last attempt is `permanent`, as dispose() dead-letters it: the job is given up on either way.
 */
export const countedOutcome = (job: PushJob, result: DeliveryResult, maxAttempts: number): DeliveryResult['outcome'] =>
  result.outcome === 'retry' && wasLastAttempt(job, maxAttempts) ? 'permanent' : result.outcome;

export type Disposition = { kind: 'ack' } | { kind: 'retry'; job: PushJob } | { kind: 'dead'; job: PushJob; reason: string };

/**
 * Whether a failed job keeps its place at the head of its webhook's line until its retry (README, "Delivery
 * order"): so after a receiver's outage its notifications come in the order they were noticed. Not when the
 * attempt was given up after it went out (a receiver slower than `push-timeout-ms`): holding the line would
 * send each notification `push-max-attempts` times, minutes apart, before the next; that retry leaves the
 * line, and the stale-state check (stale-notifications.ts) keeps the receiver's states from going back.
 */
export const retryKeepsPlace = (result: DeliveryResult): boolean => result.mayHaveArrived !== true;

/** What a queue does with a job after a delivery attempt; a retry records whether it keeps its place (`keepsPlace`). */
export function dispose(job: PushJob, result: DeliveryResult, policy: RetryPolicy, now = Date.now()): Disposition {
  if (result.outcome === 'delivered' || result.outcome === 'skipped') return { kind: 'ack' };
  const attempt = job.attempt + 1;
  const lastError = result.error ?? (result.status !== undefined ? `HTTP ${result.status}` : 'delivery failed');
  const updated: PushJob = withFields(job, { attempt, lastError, ...(result.mayHaveArrived ? { mayHaveArrived: true } : {}) });
  if (result.outcome === 'permanent') return { kind: 'dead', job: updated, reason: lastError };
  if (wasLastAttempt(job, policy.maxAttempts)) {
    return { kind: 'dead', job: updated, reason: `gave up after ${attempt} attempts: ${lastError}` };
  }
  const nextAttemptAt = now + retryDelayMs(policy, attempt);
  return { kind: 'retry', job: withFields(updated, { nextAttemptAt, keepsPlace: retryKeepsPlace(result) }) };
}

/** Turns a handler's throw into a retryable result, so a bug or outage never loses a job. */
export async function runHandler(handler: (job: PushJob) => Promise<DeliveryResult>, job: PushJob): Promise<DeliveryResult> {
  try {
    return await handler(job);
  } catch (error) {
    return { outcome: 'retry', error: error instanceof Error ? error.message.slice(0, 300) : 'handler failed' };
  }
}

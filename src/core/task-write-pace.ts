import type { RetryPace } from './write-retries.js';

/** The waits before each quick retry of a failed write: some 4 s in all, what a Redis blip lasts. */
export const RETRY_DELAYS_MS = [250, 1_000, 2_500];

/** After the quick retries, the wait between tries of a write still failing. */
export const RETRY_EVERY_MS = 5_000;

/**
 * How long after its first failure a write is tried before it is given up: a Sentinel failover with Sentinel's
 * defaults starts 30 s after the master went (down-after-milliseconds) and the clients follow it seconds later; a
 * Redis restart loads its data for tens of seconds; a rescheduled Redis pod takes a minute or so. What it costs is
 * memory: the events of the writes waiting, those the turns already running when Redis went away stream meanwhile
 * (new turns are refused while the registry is out of reach: refuseTurnsWhileOutOfReach), bounded by this time.
 */
export const RETRY_FOR_MS = 120_000;

/** How long the store's close (the gateway's stop) waits for the writes still waiting, each tried one last time. */
export const STOP_WITHIN_MS = 5_000;

/** The writer's pace of retries (write-retries.ts) and its wait at stop; shorter in tests. */
export interface TaskWriterPace extends RetryPace {
  stopWithinMs: number;
}

export const DEFAULT_PACE: TaskWriterPace = { delaysMs: RETRY_DELAYS_MS, everyMs: RETRY_EVERY_MS, forMs: RETRY_FOR_MS, stopWithinMs: STOP_WITHIN_MS };

import { setTimeout as sleep } from 'node:timers/promises';
import { isInterruptedState, isTerminalState, type TaskState } from '../model/index.js';
import type { CallContext } from './agent-port.js';
import type { RecordedState } from './context-lanes.js';
import type { TaskStore } from './task-registry/types.js';

/*
 * What context lanes and turn slots shared through Redis (context-lanes-redis.ts, turn-slots-redis.ts) agree
 * on to free the hold of a replica that died mid-turn before its lease runs out: its holder missed a renewal,
 * and the registry records the task it named over.
 */

/** How often a live holder renews its lease: every third of it. */
export const renewEveryMs = (leaseMs: number): number => Math.max(1, Math.floor(leaseMs / 3));

/** How late past its due time a live holder's renewal may land: a slow event loop, a failed renewal tried again. */
const slackMs = (leaseMs: number): number => Math.min(Math.floor(renewEveryMs(leaseMs) / 2), 2_000);

/**
 * What a live holder's lease has left at least: a renewal's interval and the slack after it. A lease with less
 * left belongs to a holder that missed a renewal (it died, or froze).
 */
export const missedRenewalMs = (leaseMs: number): number => leaseMs - renewEveryMs(leaseMs) - slackMs(leaseMs);

/** How many times a failed renewal is tried again, a quarter of the slack apart (500 ms with the default lease). */
const RENEWAL_RETRIES = 3;

/**
 * `renew` (one lease's renewal), tried again a few times within the slack when it fails (a Redis blip, a
 * connection lost and made again), while `stillHeld()`. Waiting for the next renewal instead, a third of the
 * lease later, would leave the holder judged dead meanwhile: its paused lane, and its turn's lane and slot once
 * the registry records the turn over, taken by another replica while its turn goes on. Rejects with the last
 * failure; resolves undefined when the lease was let go meanwhile.
 */
export async function renewRetrying<T>(renew: () => Promise<T>, leaseMs: number, stillHeld: () => boolean): Promise<T | undefined> {
  const retryMs = Math.max(1, Math.floor(slackMs(leaseMs) / (RENEWAL_RETRIES + 1)));
  for (let retry = 0; ; retry++) {
    try {
      return await renew();
    } catch (error) {
      if (retry === RENEWAL_RETRIES) throw error;
    }
    await sleep(retryMs, undefined, { ref: false });
    if (!stillHeld()) return undefined;
  }
}

/** The task a hold names as its turn's, and whether only a finished state ends that turn. */
export interface NamedTurn {
  taskId: string;
  /** The registry may still hold the interrupted state the turn began from (a blocking follow-up's, recorded only at its answer). */
  onlyFinishedEnds?: boolean;
}

/** How a hold writes the task it runs on: `<task>`, or `|<task>` when only a finished state ends its turn. */
export const runningPart = ({ taskId, onlyFinishedEnds }: NamedTurn): string => (onlyFinishedEnds ? `|${taskId}` : taskId);

/** What runningPart wrote; undefined when it names no task. A task id that starts with `|` reads as `onlyFinishedEnds` on another id. */
export function readRunning(part: string): NamedTurn | undefined {
  if (!part.startsWith('|')) return part ? { taskId: part } : undefined;
  return part.length > 1 ? { taskId: part.slice(1), onlyFinishedEnds: true } : undefined;
}

/**
 * Whether the registry records a named turn over: its task finished, or waiting for input (the agent asked its
 * question), unless the registry may still hold the state the turn began from.
 */
export const turnOver = (turn: NamedTurn, state: TaskState | undefined): boolean =>
  state !== undefined && (isTerminalState(state) || (!turn.onlyFinishedEnds && isInterruptedState(state)));

/** The state the registry records for a task the caller can see. */
export const recordedStateFor =
  (registry: Pick<TaskStore, 'get'>, ctx: Pick<CallContext, 'principal'>): RecordedState =>
  async (taskId) =>
    (await registry.get(taskId, ctx.principal))?.status.state;

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

/**
 * What a live holder's lease has left at least: a renewal's interval and a slow event loop after it renewed. A
 * lease with less left belongs to a holder that missed a renewal (it died, or froze).
 */
export function missedRenewalMs(leaseMs: number): number {
  const every = renewEveryMs(leaseMs);
  return leaseMs - every - Math.min(Math.floor(every / 2), 2_000);
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

import { eventTaskRef, eventTaskState, isInterruptedState, type StreamResponse } from '../model/index.js';
import type { Settling } from './agent-port.js';
import type { Lease } from './context-lanes.js';

/** A hold on a turn (a context lane, a turn slot) that names the turn's task to the other replicas. */
export type TurnHold = Pick<Lease, 'bindTask' | 'runsTask'>;

/**
 * What a stream's hold names of its turn as the turn's events come (context-lanes.ts, Lease): its task as paused
 * while the turn is paused (an answer for it rides along a lane), and only then; while it runs, as running, so that
 * a replica finding the hold of a dead holder frees it once the registry records the turn over (dead-holders.ts).
 *
 * The running task is named only once the registry holds the event that resumed it (`settled`: the fold that
 * changed the state is written first). Until then the registry may still say the task waits for input, the
 * question this turn answers (a follow-up) or its own pause a moment ago, which another replica must not read
 * as this turn's end. The write is one the state change queues anyway, so naming costs the turn no extra write.
 * `answered`: the task a follow-up's message names, whose stream's opening Task names nothing.
 */
export function streamTurnNaming(hold: TurnHold, settling: Settling, answered?: string): (event: StreamResponse) => void {
  let named: string | undefined;
  // Each naming is a generation: a running name whose write settles after a later pause or task is dropped.
  let generation = 0;
  let opening = true;
  return (event) => {
    const first = opening;
    opening = false;
    const { taskId } = eventTaskRef(event);
    const state = eventTaskState(event);
    if (!taskId || state === undefined) return;
    // An answer's stream opens with its task as it stands (a2a-js 1.x must; stream-opening.ts opens iac-code's so): the
    // question answered, not this turn pausing. Named paused, it let a second answer ride along into the running turn.
    if (first && taskId === answered && 'task' in event && isInterruptedState(state)) return;
    if (isInterruptedState(state)) {
      named = undefined;
      generation++;
      return hold.bindTask(taskId);
    }
    hold.bindTask(undefined);
    if (named === taskId) return;
    named = taskId;
    const naming = ++generation;
    void settling.settled(taskId).then(() => {
      if (naming === generation) hold.runsTask(taskId);
    });
  };
}

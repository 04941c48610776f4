import type { CallContext } from '../../../core/agent-port.js';
import { headThenRest } from '../../../core/iterables.js';
import { isActiveState, type StreamResponse, type Task } from '../../../model/index.js';
import type { V025FacadeDeps } from '../deps.js';
import { withStartedAfreshTold } from '../turn/started-afresh.js';
import { latestTurnStartedAfresh } from '../notes/started-afresh-turns.js';
import { taskAsKept, withWholeHistory } from './task-history.js';
import { taskReplyEvents } from './task-reply.js';

/**
 * tasks/resubscribe reads a turn as every other path reads it (docs/facade-reply.md): its caller read none of the reply
 * on this stream, so a turn that went on in a fresh context (gone-task.ts) opens with the words that say the agent
 * started afresh (started-afresh.ts), as its message/stream did and tasks/get does: after the Task as it stands
 * (joined-turn.ts), before the words the turn said so far, by the note made as the words went out
 * (started-afresh-turns.ts): a resubscription within that one store write of the turn's opening reads the reply
 * without them, as tasks/get does then. A turn that ended (input-required:
 * the core answers its Task alone, core/subscribable.ts) is the reply tasks/get reads (task-reply.ts), the words too,
 * not the Task's messages as they stand, which hold iac-code's restatement of its last words and no word of the facade's.
 */

export interface RejoinedTurn {
  deps: V025FacadeDeps;
  ctx: CallContext;
  /** The registry's record of the task, read before the subscription; undefined when it holds none. */
  recorded: Task | undefined;
  /** The words that say the agent started afresh, in the language the call is answered in. */
  startedAfresh: string;
}

/** The ended turn `task` tells, as tasks/get reads it: the agent's task with its whole history, the recorded one when it cannot say. */
async function endedTurnEvents(turn: RejoinedTurn, task: Task): Promise<StreamResponse[]> {
  const { deps, ctx } = turn;
  const kept = await taskAsKept(deps, { id: task.id }, ctx).catch(() => withWholeHistory(task, task.history ?? []));
  return (await taskReplyEvents(deps, kept, ctx)).events;
}

/** A resubscription's events as its caller reads them (joined-turn.ts's, the Task first), as the turn's other paths read it. */
export async function* rejoinedTurn(joined: AsyncIterable<StreamResponse>, turn: RejoinedTurn): AsyncGenerator<StreamResponse> {
  const { recorded, ctx } = turn;
  // Read beside the subscription's opening: a store's round trip does not hold up the agent's first answer.
  const afresh = recorded ? latestTurnStartedAfresh(turn.deps.languages?.startedAfreshTurns, ctx.principal, recorded) : Promise.resolve(false);
  const iterator = joined[Symbol.asyncIterator]();
  // Once handed on, the subscription is returned by whoever reads it (headThenRest), not again here.
  let handedOn = false;
  try {
    const first = await iterator.next();
    if (first.done) return;
    const event = first.value;
    if ('task' in event && !isActiveState(event.task.status.state)) {
      yield* await endedTurnEvents(turn, event.task);
      return;
    }
    const events = headThenRest(Promise.resolve(first), iterator, () => (handedOn = true));
    yield* (await afresh) ? withStartedAfreshTold(events, turn.startedAfresh) : events;
  } finally {
    if (!handedOn) await Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

import { randomUUID } from 'node:crypto';
import type { CallContext } from '../../core/agent-port.js';
import { tapIterable } from '../../core/iterables.js';
import { eventTaskRef, eventTaskState, isActiveState, type Message, type StreamResponse, type Task, type TaskState } from '../../model/index.js';
import type { V025FacadeDeps } from './deps.js';
import type { FacadeWords } from './reply/index.js';
import { followedRest } from './turn-recovery.js';
import { restCursor, restEvents, type TurnSoFar } from './turn-rest.js';
import type { CutTurnNotes } from './cut-turn-notes.js';

/**
 * A Bailian turn the gateway's shutdown cut (a rollout) goes on at the agent, and its
 * user was told that their next message in the conversation shows what it said after the cut
 * (words.turnCutByShutdown). That next message, on any replica, is answered with the cut turn's rest instead
 * of being sent: followed live while the agent still works on it (a message into a running turn would be
 * refused, or would damage it at iac-code), else read from the task (its answer, the question it asked, why it
 * failed). What the user was shown is the task as the registry recorded it at the cut. The message itself is
 * not taken as an answer to words its writer never read, and the reply says it was not sent.
 */
export interface CutTurn {
  /** The cut turn's task as the registry last saw it: what its user was shown. */
  recorded: Task;
  /** The task as the agent has it now. */
  current: Task;
}

/**
 * The conversation's cut turn whose rest its user has not read, if any: one noted as cut, which the registry last
 * saw running. Read before anything asks the agent for the task (the core records its answer).
 */
export async function cutTurnOf(
  conversation: { principal: string; contextId: string | undefined },
  notes: CutTurnNotes,
  deps: V025FacadeDeps,
  ctx: CallContext,
): Promise<CutTurn | undefined> {
  const { principal, contextId } = conversation;
  if (!contextId) return undefined;
  const taskId = await notes.cut(principal, contextId);
  if (!taskId) return undefined;
  const recorded = await deps.registry.get(taskId, principal).catch(() => undefined);
  // The registry saw the turn's end after all (its task read since): nothing is known to be unread.
  const current = recorded && isActiveState(recorded.status.state) ? await deps.port.getTask({ id: taskId }, ctx).catch(() => undefined) : undefined;
  if (!recorded || !current) {
    await notes.forget(principal, contextId, taskId);
    return undefined;
  }
  return { recorded, current };
}

/** The cut turn's rest as the events a streaming agent would have sent, opened with the words that say what it is. */
export async function* cutTurnRest(cut: CutTurn, words: FacadeWords, ctx: CallContext, deps: V025FacadeDeps): AsyncGenerator<StreamResponse> {
  const { current, recorded } = cut;
  const contextId = current.contextId ?? recorded.contextId ?? current.id;
  const said: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: `${words.cutTurnRest}\n\n` }] };
  yield { statusUpdate: { taskId: current.id, contextId, status: { state: 'TASK_STATE_WORKING', message: said } } };
  // No message of this turn is the task's: its rest starts after the agent's messages the recorded task holds.
  const sent: Message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [], taskId: current.id, contextId };
  const turn: TurnSoFar = { sent, previous: recorded, passed: [] };
  if (isActiveState(current.status.state)) {
    yield* followedRest(current.id, turn, ctx, deps);
    return;
  }
  yield* restEvents(current, restCursor(current, turn), turn, recorded.artifacts).events;
}

/**
 * A turn's events, watched for its task: when the gateway's shutdown ends the turn before its end came, the task
 * is noted as cut (cutTurnOf reads it on the conversation's next message). A turn that showed a cut turn's rest
 * to its end forgets that note.
 */
export function watchedTurn(
  conversation: { principal: string; contextId: string | undefined },
  notes: CutTurnNotes,
  shutdown: AbortSignal | undefined,
  shows: CutTurn | undefined,
): { events(source: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse>; end(): void } {
  const { principal, contextId } = conversation;
  let taskId: string | undefined;
  let state: TaskState | undefined;
  let ended = false;
  return {
    events: (source) =>
      tapIterable(source, {
        item(event) {
          taskId ||= eventTaskRef(event).taskId;
          state = eventTaskState(event) ?? state;
        },
      }),
    end() {
      if (ended || !contextId) return;
      ended = true;
      const over = state !== undefined && !isActiveState(state);
      // The note is written as the cut stream ends, before the gateway closes its stores (app.ts closes them after the drain).
      if (shutdown?.aborted && taskId && !over) void notes.note(principal, contextId, taskId);
      else if (shows && over) void notes.forget(principal, contextId, shows.current.id);
    },
  };
}

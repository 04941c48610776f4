import type { Settling } from '../core/agent-port.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import type { StreamResponse } from '../model/index.js';
import { recordHoldsTurnEnd } from './turn-of-record.js';

export interface V1TurnEndDeps {
  registry: Pick<TaskRegistry, 'get'>;
  /** The gateway's `settled`: the task's fold is written before it is read. */
  settled: Settling['settled'];
}

/**
 * What a 1.0 receiver under `push-events: terminal` is pushed for the change that ends a turn: the Task, as a
 * blocking send's webhook is pushed the answer. A streamed turn ends with a status update, and iac-code's (as
 * many agents' that say their reply in artifact chunks) carries no message: the words came in the events before
 * it, which `terminal` does not push, so the bare update left the receiver to call GetTask for them. The task is
 * read here, once per change that ends a turn (never per streamed event), after its fold settled: the turn's words
 * are in its history and artifacts. A change whose turn the record is not known to hold (turn-of-record.ts: read once the
 * task moved on, held while Redis was out of reach, or recorded without that turn's fold) is pushed as the update
 * it is, rather than another turn's Task under its event id.
 */
export async function v1TurnEnd(
  deps: V1TurnEndDeps,
  taskId: string,
  owner: string,
  event: StreamResponse,
  turnMessageId?: string,
): Promise<StreamResponse> {
  if (!('statusUpdate' in event)) return event;
  await deps.settled(taskId);
  const task = await deps.registry.get(taskId, owner);
  if (!task || !recordHoldsTurnEnd(task, event.statusUpdate.status, turnMessageId)) return event;
  return { task };
}

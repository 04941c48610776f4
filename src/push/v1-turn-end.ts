import type { Settling } from '../core/agent-port.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import type { StreamResponse, Task, TaskStatus } from '../model/index.js';

export interface V1TurnEndDeps {
  registry: Pick<TaskRegistry, 'get'>;
  /** The gateway's `settled`: the task's fold is written before it is read. */
  settled: Settling['settled'];
}

/** The id of the last message of the caller's in the task's history. */
function lastCallerMessageId(task: Task): string | undefined {
  const history = task.history ?? [];
  for (let index = history.length - 1; index >= 0; index -= 1) {
    if (history[index]!.role === 'ROLE_USER') return history[index]!.messageId;
  }
  return undefined;
}

/**
 * Whether the recorded task is the one `status` ended, not a later turn's (the next turn ended in the same state:
 * iac-code ends every turn input-required) nor an earlier one's (a fold not written while Redis was out). The same
 * state is not enough: a status the agent stamped is that turn's when the record holds that very status (its
 * timestamp and message); an unstamped one, when the turn's own message (`turnMessageId`, a send's stream) is the
 * caller's last in the record. Anything else is not known to be that turn's.
 */
function endedBy(task: Task, status: TaskStatus, turnMessageId: string | undefined): boolean {
  const recorded = task.status;
  if (recorded.state !== status.state) return false;
  if (status.timestamp !== undefined) {
    return recorded.timestamp === status.timestamp && recorded.message?.messageId === status.message?.messageId;
  }
  return turnMessageId !== undefined && lastCallerMessageId(task) === turnMessageId;
}

/**
 * What a 1.0 receiver under `push-events: terminal` is pushed for the change that ends a turn: the Task, as a
 * blocking send's webhook is pushed the answer. A streamed turn ends with a status update, and iac-code's (as
 * many agents' that say their reply in artifact chunks) carries no message: the words came in the events before
 * it, which `terminal` does not push, so the bare update left the receiver to call GetTask for them. The task is
 * read here, once per change that ends a turn (never per streamed event), after its fold settled: the turn's words
 * are in its history and artifacts. A change whose turn the record is not known to hold (`endedBy`: read once the
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
  if (!task || !endedBy(task, event.statusUpdate.status, turnMessageId)) return event;
  return { task };
}

import type { Settling } from '../core/agent-port.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import type { Task, TaskStatus } from '../model/index.js';

/** The id of the last message of the caller's in the task's history. */
export function lastCallerMessageId(task: Task): string | undefined {
  const history = task.history ?? [];
  for (let index = history.length - 1; index >= 0; index -= 1) {
    if (history[index]!.role === 'ROLE_USER') return history[index]!.messageId;
  }
  return undefined;
}

/**
 * Whether the recorded task is the one `status` ended, not a later turn's (the next turn began, or ended in the same
 * state: iac-code ends every turn input-required) nor an earlier one's (a fold not written while Redis was out). A
 * turn's end is read from the registry once its events settled, and by then the caller may have sent the next
 * message. The same state is not enough: a status the agent stamped is that turn's when the record holds that very
 * status (its timestamp and message); an unstamped one, when the turn's own message (`turnMessageId`: a send's, for
 * its stream, answer and follow; a subscription's, the caller's last as it began) is the caller's last in the
 * record. Anything else is not known to be that turn's.
 */
export function recordHoldsTurnEnd(task: Task, status: TaskStatus, turnMessageId: string | undefined): boolean {
  const recorded = task.status;
  if (recorded.state !== status.state) return false;
  if (status.timestamp !== undefined) {
    return recorded.timestamp === status.timestamp && recorded.message?.messageId === status.message?.messageId;
  }
  return turnMessageId !== undefined && lastCallerMessageId(task) === turnMessageId;
}

/**
 * The caller's message that began the task's turn as recorded now (once its events settled): a subscription's turn
 * is the one at work when it begins. Undefined when the registry does not hold the task for `owner`, or cannot say.
 */
export async function recordedTurnMessageId(
  deps: { registry: Pick<TaskRegistry, 'get'>; settled: Settling['settled'] },
  taskId: string,
  owner: string,
): Promise<string | undefined> {
  try {
    await deps.settled(taskId);
    const task = await deps.registry.get(taskId, owner);
    return task ? lastCallerMessageId(task) : undefined;
  } catch {
    // Not known: the turn's end, if unstamped, goes as the update it is.
    return undefined;
  }
}

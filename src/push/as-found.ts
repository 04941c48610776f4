import type { Settling } from '../core/agent-port.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import { isInterruptedState, type SendMessageRequest, type StreamResponse, type TaskStatus } from '../model/index.js';
import { statusKey, UNTOLD } from './event-id.js';

/**
 * A follow-up sent without waiting (`returnImmediately`) into a task that waits for input may be answered before the
 * agent did anything of its turn: a2a-js answers with the first event of the turn, and an agent that opens a
 * follow-up with the task as it found it (as a2a-js's own streams must) answers the last turn's question, its
 * status stamped before this turn's message. That answer is no end of this turn: taken for one, the turn went
 * unfollowed, and its real end (the next question, the completion) was never pushed. It is told by its status, the
 * very one the record held before the turn was sent (`statusKey`: its timestamp and message), not by clocks.
 */

/**
 * The key of the status the follow-up's task waits in as recorded before it is sent, which the agent's answer may
 * repeat; undefined for any other send (a blocking one, a new task, a running or unknown task), and for a status
 * that tells nothing of itself (no timestamp, no message: another turn's end could not be told from it).
 */
export function statusBeforeTurn(
  deps: { registry: Pick<TaskRegistry, 'get'>; settled: Settling['settled'] },
  request: SendMessageRequest,
  owner: string,
): Promise<string | undefined> | undefined {
  const taskId = request.message.taskId;
  // Every other send (the hot blocking path among them) is not held up, not even by an await.
  if (request.configuration?.returnImmediately !== true || !taskId) return undefined;
  return recordedStatusKey(deps, taskId, owner);
}

async function recordedStatusKey(
  deps: { registry: Pick<TaskRegistry, 'get'>; settled: Settling['settled'] },
  taskId: string,
  owner: string,
): Promise<string | undefined> {
  try {
    await deps.settled(taskId);
    const status = (await deps.registry.get(taskId, owner))?.status;
    const key = status && isInterruptedState(status.state) ? statusKey(status) : UNTOLD;
    return key === UNTOLD ? undefined : key;
  } catch {
    // Not known: the answer is taken as it says, as before.
    return undefined;
  }
}

/** Whether `status` is the one the task was found in (`asFound`, statusBeforeTurn's key): it does not end the turn. */
export const isAsFound = (status: TaskStatus, asFound: string | undefined): boolean => asFound !== undefined && statusKey(status) === asFound;

/** `before` (statusBeforeTurn's key) when the answer repeats it: the turn began, its end is still to come; undefined otherwise. */
export function asFoundOf(answer: StreamResponse, before: string | undefined): string | undefined {
  return 'task' in answer && isAsFound(answer.task.status, before) ? before : undefined;
}

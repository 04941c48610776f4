import { A2AError, ErrorCode, isTerminalState, type TaskState } from '../model/index.js';

/**
 * Throws unless a task in `state` can be subscribed to. A terminal task has nothing left to follow:
 * the spec's UnsupportedOperation, whatever the agent would say (iac-code: -32001). An input-required
 * turn is over but the task is not terminal: an a2a-js subscription would wait forever, so the answer
 * is iac-code's "not active". An unknown state lets the upstream decide.
 */
export function assertSubscribable(taskId: string, state: TaskState | undefined): void {
  if (state && isTerminalState(state)) {
    throw A2AError.unsupportedOperation(`Task ${taskId} is in a terminal state and cannot be subscribed to`);
  }
  if (state === 'TASK_STATE_INPUT_REQUIRED') {
    throw new A2AError(ErrorCode.TaskNotFound, `Task ${taskId} is not active`, { metadata: { taskId } });
  }
}

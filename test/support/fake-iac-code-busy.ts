/**
 * The fake iac-code's one turn per context (docs/iac-code.md, "One turn per context"), on when it is given `busyWaitMs`:
 * a message to a context whose turn runs in another task waits that long, then fails its own task with "Task is already
 * working." (busyTurn); one into the running task itself is taken into its history, and after the wait the task is
 * failed so on every stream of it while its turn goes on (fake-iac-code-running-turns.ts refuseIntoRunning).
 */
import { timestamp, type Json } from './fake-iac-code-data.js';

/** iac-code's words for a message that reaches a context while another turn of it runs (English, whatever the turn's language). */
export const BUSY_CONTEXT_WORDS = 'Task is already working.';

/** Marks a turn's wait for its context, the milliseconds it waits (busyTurn; fake-iac-code-running-turns.ts). */
export const AWAIT_CONTEXT = '__awaitContext';

/** iac-code's FAILED status for a message that reached its context while a turn of it runs. */
export function busyRefusal(task: Json): Json {
  const taskId = task.id as string;
  const contextId = task.contextId as string;
  const message = { messageId: `${taskId}-4`, contextId, taskId, role: 'ROLE_AGENT', parts: [{ text: BUSY_CONTEXT_WORDS }] };
  return { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_FAILED', message, timestamp: timestamp() } } };
}

/**
 * The turn of a message to a context whose turn runs in another task (a new task, or a follow-up of a task waiting for
 * input: the demo agent takes the context's lock for every turn): opened as any, then the wait, then the refusal.
 */
export function busyTurn(task: Json, userMessage: Json, newTask: boolean, waitMs: number): Json[] {
  const { id: taskId, contextId } = task;
  const opening = { task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [{ ...userMessage, contextId, taskId }] } };
  return [...(newTask ? [opening] : []), { [AWAIT_CONTEXT]: waitMs }, busyRefusal(task)];
}

/** Whether a task of `task`'s context other than itself runs a turn that holds the context (`holds`). */
export function runsAnotherTurn(tasks: Iterable<Json>, task: Json, holds: (taskId: string) => boolean): boolean {
  for (const other of tasks) if (other.id !== task.id && other.contextId === task.contextId && holds(other.id as string)) return true;
  return false;
}

/**
 * As a2a-python's TaskManager.update_with_message: the status message (the last turn's question or error, or the running
 * turn's latest words) goes into the history first, then the new message; the status keeps no message until the next update.
 */
export function takeIntoHistory(task: Json, message: Json): void {
  const status = task.status as Json;
  const said = status.message as Json | undefined;
  const { message: _moved, ...unsaid } = status;
  task.status = unsaid;
  task.history = [
    ...((task.history as Json[] | undefined) ?? []),
    ...(said ? [said] : []),
    { ...message, contextId: task.contextId, taskId: task.id },
  ];
}

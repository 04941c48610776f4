import { z } from 'zod';
import { JsonObject, Part } from './parts.js';
import { Message } from './message.js';
import { withFields } from './/index.js';

export const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export const TaskState = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskState>;

const TERMINAL: ReadonlySet<TaskState> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
const INTERRUPTED: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

export const isTerminalState = (state: TaskState): boolean => TERMINAL.has(state);
export const isInterruptedState = (state: TaskState): boolean => INTERRUPTED.has(state);
/** A turn is over: a blocking call returns and a stream closes (a2a-sdk closes on INPUT_REQUIRED, not AUTH_REQUIRED). */
export const endsTurn = (state: TaskState): boolean => TERMINAL.has(state) || state === 'TASK_STATE_INPUT_REQUIRED';
export const isActiveState = (state: TaskState): boolean => state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING';

/**
 * States whose status message explains the state rather than answers: why the task failed, was
 * canceled or rejected, what authorisation it wants; and no state at all.
 */
const EXPLAINED: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_UNSPECIFIED',
]);
export const isExplainedState = (state: TaskState): boolean => EXPLAINED.has(state);

export const TaskStatus = z.looseObject({
  state: TaskState,
  message: Message.optional(),
  timestamp: z.string().optional(),
});
export type TaskStatus = z.infer<typeof TaskStatus>;

export const Artifact = z.looseObject({
  artifactId: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(Part).min(1),
  metadata: JsonObject.optional(),
  extensions: z.array(z.string()).optional(),
});
export type Artifact = z.infer<typeof Artifact>;

export const Task = z.looseObject({
  id: z.string().min(1),
  contextId: z.string().optional(),
  status: TaskStatus,
  artifacts: z.array(Artifact).optional(),
  history: z.array(Message).optional(),
  metadata: JsonObject.optional(),
});
export type Task = z.infer<typeof Task>;

/** The task under another id, its messages included (a caller's own id for an upstream task). */
export function renamedTask(task: Task, id: string): Task {
  const rename = (message: Message): Message => (message.taskId ? withFields(message, { taskId: id }) : message);
  const status = task.status.message ? withFields(task.status, { message: rename(task.status.message) }) : task.status;
  return withFields(task, { id, status, ...(task.history ? { history: task.history.map(rename) } : {}) });
}

/** The answer copy of a task for `historyLength` (absent: all, 0: none, n: last n); the stored task is untouched. */
export function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined || !task.history) return task;
  if (historyLength <= 0) {
    const { history: _dropped, ...rest } = task;
    return rest;
  }
  if (task.history.length <= historyLength) return task;
  return withFields(task, { history: task.history.slice(task.history.length - historyLength) });
}

import {
  statusMessageInHistory,
  withFields,
  type Message,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../model/index.js';
import { defined } from './common.js';

/**
 * A 1.0 stream is one Message, or one Task and its updates. Older agents' streams keep to that less
 * strictly; these make what they send into what a 1.0 stream can carry.
 */

export interface StreamTask {
  taskId: string;
  contextId: string;
}

/** The status a Message of its task stands for: the task COMPLETED, with the message (ids its task's) as the answer. */
function answeredStatus(task: StreamTask, message: Message): TaskStatus {
  return { state: 'TASK_STATE_COMPLETED', message: withFields(message, { taskId: task.taskId, contextId: task.contextId }) };
}

/**
 * A Message an older agent sends in its task's stream. a2a-js 0.2.5 ends every stream at a Message, so that
 * Message is the agent's answer to the turn and nothing follows it. As 1.0 carries such an answer: the task
 * COMPLETED, with the message. Relayed as a Message, it left the task working for good in the gateway's
 * records and at the agent, and the conversation refused every later turn as one still in progress.
 */
export function answerOfTask(task: StreamTask, message: Message): StreamResponse {
  return { statusUpdate: { taskId: task.taskId, contextId: task.contextId, status: answeredStatus(task, message) } };
}

/**
 * The same answer to a blocking call: a2a-js 0.2.5 answers `message/send` with the Message alone, which names
 * its task (`taskId`). `task` (the agent's Task as it stands, or one with its ids only) becomes what the stream's
 * events make of it, folded as the SDKs' task managers fold a status update (the previous status message moves
 * into the history, unless the agent filed it there already, as the registry's fold decides): COMPLETED, with the
 * message. Relayed as a Message, its task was never recorded, and stayed working for GetTask while the same turn
 * streamed said COMPLETED.
 */
export function answeredTask(task: Task, message: Message): Task {
  const status = answeredStatus({ taskId: task.id, contextId: task.contextId ?? message.contextId ?? '' }, message);
  const previous = task.status.message;
  const moved = previous && !statusMessageInHistory(task.history, previous, message, Infinity);
  return withFields(task, { status, ...(moved ? { history: [...(task.history ?? []), previous] } : {}) });
}

/**
 * An update in a task's stream that names another task of the same context: the stream's own. a2a-js 0.2.5
 * reports an executor that throws with a failed status-update for `requestContext.task?.id || uuidv4()`, so
 * a turn that failed in its first task showed a failed task nobody made and left its own working for good.
 */
export function ofStreamTask<T extends TaskStatusUpdateEvent | TaskArtifactUpdateEvent>(task: StreamTask, update: T): T {
  const strayed = update.taskId !== task.taskId && (update.contextId === task.contextId || !update.contextId);
  return strayed ? withFields(update, { taskId: task.taskId, contextId: task.contextId }) : update;
}

/**
 * The Task a stream that opens with an update (0.2.5 and 0.3 agents may) opens with: the ids, SUBMITTED (at the
 * update's time), as a native 1.0 agent opens each turn, a follow-up's too; the update, relayed next, says what
 * became of it. A Task made of the update's status said its message, and the update said it again: a client
 * showed it twice.
 */
export function openingTaskOf(update: TaskStatusUpdateEvent | TaskArtifactUpdateEvent): { task: Task } {
  const timestamp = 'artifact' in update ? undefined : update.status.timestamp;
  return { task: { id: update.taskId, contextId: update.contextId, status: defined({ state: 'TASK_STATE_SUBMITTED' as const, timestamp }) } };
}

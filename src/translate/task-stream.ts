import { withFields, type Message, type StreamResponse, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '../model/index.js';

/**
 * A 1.0 stream is one Message, or one Task and its updates. Older agents' streams keep to that less
 * strictly; these make what they send into what a 1.0 stream can carry.
 */

export interface StreamTask {
  taskId: string;
  contextId: string;
}

/**
 * A Message an older agent sends in its task's stream. a2a-js 0.2.5 ends every stream at a Message, so that
 * Message is the agent's answer to the turn and nothing follows it. As 1.0 carries such an answer: the task
 * COMPLETED, with the message. Relayed as a Message, it left the task working for good in the gateway's
 * records and at the agent, and the conversation refused every later turn as one still in progress.
 */
export function answerOfTask(task: StreamTask, message: Message): StreamResponse {
  const answer = withFields(message, { taskId: task.taskId, contextId: task.contextId });
  return { statusUpdate: { taskId: task.taskId, contextId: task.contextId, status: { state: 'TASK_STATE_COMPLETED', message: answer } } };
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

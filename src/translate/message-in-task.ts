import { withFields, type Message, type StreamResponse } from '../model/index.js';

/**
 * A Message an older agent sends in its task's stream. A 1.0 stream is one Message or a Task and its
 * updates, never both; a2a-js 0.2.5 ends every stream at a Message, so that Message is the agent's answer
 * to the turn and nothing follows it. As 1.0 carries such an answer: the task COMPLETED, with the message.
 * Relayed as a Message, it left the task working for good in the gateway's records and at the agent, and
 * the conversation refused every later turn as one still in progress.
 */
export function answerOfTask(task: { taskId: string; contextId: string }, message: Message): StreamResponse {
  const answer = withFields(message, { taskId: task.taskId, contextId: task.contextId });
  return { statusUpdate: { taskId: task.taskId, contextId: task.contextId, status: { state: 'TASK_STATE_COMPLETED', message: answer } } };
}

import { ErrorCode, toA2AError, withHistoryLength, type SendMessageResponse, type Task } from '../model/index.js';
import { answeredTask } from '../translate/index.js';

/**
 * A blocking answer of an older agent (0.2.5, 0.3 over JSON-RPC or HTTP+JSON) read as a 1.0 agent would give it.
 * A Message that names its task is the agent's answer to the turn (a2a-js answers so when its executor publishes
 * a Task, then a Message of it, and keeps the task working): it becomes the task COMPLETED with the message, as
 * the same turn streamed does (answeredTask, task-stream.ts), over the agent's Task as it stands (`getTask`: its
 * history and artifacts), or over the task's ids alone when the agent cannot say. An agent that does not know
 * the task (it stamps ids on a plain answer and keeps no tasks) answered a Message, which stays one. Relayed as
 * a Message, the task was never recorded, and stayed working for GetTask while the same turn streamed ended.
 */
export async function answerAsTask(response: SendMessageResponse, getTask: (taskId: string) => Promise<Task>): Promise<SendMessageResponse> {
  if (!('message' in response) || !response.message.taskId) return response;
  const { taskId, contextId } = response.message;
  let current: Task;
  try {
    current = await getTask(taskId);
  } catch (error) {
    if (toA2AError(error).code === ErrorCode.TaskNotFound) return response;
    current = { id: taskId, ...(contextId ? { contextId } : {}), status: { state: 'TASK_STATE_WORKING' } };
  }
  return { task: answeredTask(current, response.message) };
}

/** A SendMessage answer with its task's history cut to what the caller asked for (older agents do not all cut it, and answerAsTask adds to it). */
export const historyAsAsked = (response: SendMessageResponse, historyLength: number | undefined): SendMessageResponse =>
  'task' in response ? { task: withHistoryLength(response.task, historyLength) } : response;

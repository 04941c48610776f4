import { refusesFinishedTask, type A2AError } from '../../../model/index.js';
import { isRecord } from '../../../model/json.js';
import type { ClientTaskIds } from './client-task-ids.js';
import { FINISHED_CODES } from './gone-task.js';

/**
 * Whether `error` is the agent's refusal of a message to the task its caller named, because that task is finished, in
 * the words and codes gone-task.ts reads (a2a-js "Task X is in a terminal state (completed) and cannot be modified",
 * iac-code "Task X is in terminal state: N"): a client that keeps a finished task's id. Its user reads it (a turn the
 * facade aimed at a task goes again in a new one instead, gone-task.ts), so it is told in the turn's language
 * (told-in-turn-language.ts). `params`: the message/send or message/stream params, as the caller sent them.
 */
export async function refusesNamedFinishedTask(error: A2AError, params: unknown, principal: string, ids: ClientTaskIds): Promise<boolean> {
  const named = isRecord(params) && isRecord(params.message) ? params.message.taskId : undefined;
  if (typeof named !== 'string' || named === '') return false;
  // The agent names the task by its own id, not by one the caller chose for it (client-task-ids.ts).
  const { upstreamId } = await ids.forCall(named, principal).catch(() => ({ upstreamId: named }));
  return refusesFinishedTask(error, upstreamId, FINISHED_CODES);
}

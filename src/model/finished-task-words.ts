import { A2AError } from './errors.js';

/**
 * Whether an agent's error refuses a message to its task `taskId` because the task is finished, in the words
 * agents of every version use: a2a-js "Task X is in a terminal state (completed) and cannot be modified.",
 * a2a-python and iac-code "Task X is in terminal state: N". Only a refusal that names the task (any other
 * invalid request is the caller's own), and only under one of `codes`, which differ by version.
 */
export function refusesFinishedTask(error: unknown, taskId: string, codes: ReadonlySet<number>): error is A2AError {
  return error instanceof A2AError && codes.has(error.code) && /\bterminal state\b/i.test(error.message) && error.message.includes(taskId);
}

import { A2AError, ErrorCode, isTerminalState, type SendMessageRequest, type Task } from '../../model/index.js';

/**
 * Whether the agent refused to stream a message going on with its task, before any event, though it can take the
 * message otherwise: an a2a-js 1.x agent serving 0.3 refuses a stream that does not open with a Task or Message
 * (-32004 "Received statusUpdate before initial 'Message'/'Task' event.") while its executor, following the SDK's
 * samples, publishes only updates when it goes on with a task; the same agent takes a non-blocking send of it.
 * Not a refusal of a finished task (-32004 too, in a2a-js 1.x): that is asked of the agent, and stays the caller's.
 */
export async function refusedToStreamFollowUp(
  error: unknown,
  request: SendMessageRequest,
  getTask: (taskId: string) => Promise<Task>,
): Promise<boolean> {
  const { taskId } = request.message;
  if (!taskId || !(error instanceof A2AError) || error.code !== ErrorCode.UnsupportedOperation || error.hopFailure !== undefined) return false;
  const task = await getTask(taskId).catch(() => undefined);
  return task !== undefined && !isTerminalState(task.status.state);
}

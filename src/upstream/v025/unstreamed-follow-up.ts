import { A2AError, ErrorCode, type SendMessageResponse, type Task } from '../../model/index.js';

/**
 * A 1.0 caller's SendMessage with `returnImmediately` going on with a task, to a 0.2.5/0.3 agent that does not
 * stream (so the turn cannot be streamed instead, upstream/v025/immediate.ts): sent as `message/send` with blocking false.
 * a2a-js 0.2.5 answers that with the first Task or Message the executor publishes; an executor going on with a
 * task publishes status updates only, so the SDK runs the turn to its end and then fails the call with JSON-RPC
 * InternalError, though the agent did the work. The task is read before the send and again after such a failure:
 * when its status moved on meanwhile, the agent took the message, and the task as it now stands answers the
 * caller (as a blocking send would have). A task that did not move, another failure, or a task that cannot be
 * read leaves the failure as it was. The extra read costs one tasks/get per such follow-up, on this path alone.
 */
export async function followUpAnsweredByTask(
  send: () => Promise<SendMessageResponse>,
  readTask: () => Promise<Task>,
  signal: AbortSignal,
): Promise<SendMessageResponse> {
  const before = await readTask().catch(() => undefined);
  try {
    return await send();
  } catch (error) {
    if (!before || !agentAnsweredInternalError(error, signal)) throw error;
    const after = await readTask().catch(() => undefined);
    if (!after || sameStatus(before, after)) throw error;
    return { task: after };
  }
}

/**
 * The agent's own JSON-RPC InternalError, not the gateway's: a transport failure carries what happened as its
 * `cause` (fromTransportError), a caller that left has its signal aborted.
 */
function agentAnsweredInternalError(error: unknown, signal: AbortSignal): boolean {
  return error instanceof A2AError && error.code === ErrorCode.Internal && error.cause === undefined && !signal.aborted;
}

/** Every status update replaces the whole status (state, message, timestamp): the same JSON is no update. */
const sameStatus = (before: Task, after: Task): boolean => JSON.stringify(before.status) === JSON.stringify(after.status);

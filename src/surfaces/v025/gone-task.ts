import { A2AError, ErrorCode, withFields, type SendMessageRequest, type StreamResponse } from '../../model/index.js';

/** The codes agents refuse a message to a finished task with: -32004 (a2a-js 1.x), -32600 (0.2.5), -32602 (iac-code). */
const FINISHED_CODES: ReadonlySet<number> = new Set([ErrorCode.UnsupportedOperation, ErrorCode.InvalidRequest, ErrorCode.InvalidParams]);

/**
 * The agent no longer has the task `taskId`: it does not know it (an agent that keeps its tasks in memory
 * and restarted: -32001), or says that task is finished (it ended unseen): a2a-js "Task X is in a terminal
 * state", iac-code "Task X is in terminal state: N". Only a refusal that names the task: any other
 * invalid request is the turn's own failure.
 */
export function isGoneTask(error: unknown, taskId: string): boolean {
  if (!(error instanceof A2AError)) return false;
  if (error.code === ErrorCode.TaskNotFound) return true;
  return FINISHED_CODES.has(error.code) && /\bterminal state\b/i.test(error.message) && error.message.includes(taskId);
}

/**
 * A follow-up the facade aimed at its conversation's waiting task (the caller named none, as Bailian never
 * does) that the agent refuses because it no longer has that task: the conversation goes on in a new task of
 * the same context, rather than every later message failing the same way. Only a refusal before the first
 * event: the agent did nothing with the message. `asked`: the caller's own message, when the facade sent
 * the agent an answer made of it (to a permission prompt or a choice the lost task asked); that is what
 * goes to the new task.
 */
export async function* inNewTaskIfGone(
  request: SendMessageRequest,
  run: (request: SendMessageRequest) => AsyncIterable<StreamResponse>,
  asked: SendMessageRequest = request,
): AsyncGenerator<StreamResponse> {
  const aimedAt = request.message.taskId;
  const source = run(request)[Symbol.asyncIterator]();
  let first: IteratorResult<StreamResponse>;
  try {
    first = await source.next();
  } catch (error) {
    if (aimedAt === undefined || !isGoneTask(error, aimedAt)) throw error;
    const { taskId: _gone, ...message } = asked.message;
    yield* run(withFields(asked, { message }));
    return;
  }
  try {
    for (let next = first; !next.done; next = await source.next()) yield next.value;
  } finally {
    await source.return?.();
  }
}

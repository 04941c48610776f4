import { A2AError, ErrorCode, withFields, type SendMessageRequest, type StreamResponse } from '../../model/index.js';

/**
 * The agent no longer has the task a follow-up was aimed at: it does not know it (an agent that keeps its
 * tasks in memory and restarted), or says it is finished (it ended unseen). a2a-js answers the one -32001 and
 * the other "is in a terminal state" (-32004 in 1.x, -32600 in 0.2.5), iac-code "is in terminal state: N".
 */
export function isGoneTask(error: unknown): boolean {
  return error instanceof A2AError && (error.code === ErrorCode.TaskNotFound || /\bterminal state\b/i.test(error.message));
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
  const source = run(request)[Symbol.asyncIterator]();
  let first: IteratorResult<StreamResponse>;
  try {
    first = await source.next();
  } catch (error) {
    if (!isGoneTask(error)) throw error;
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

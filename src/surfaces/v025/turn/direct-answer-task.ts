import { randomUUID } from 'node:crypto';
import type { CallContext } from '../../../core/agent-port.js';
import { SteppedStage, type Step } from '../../../core/stepped-stages.js';
import { withFields, type Message, type SendMessageRequest, type StreamResponse, type Task } from '../../../model/index.js';
import type { V025FacadeDeps } from '../deps.js';

/**
 * A direct Message answer (the agent made no task of the turn) under a profile that shows it as a task
 * (`direct-message-as: task`, Bailian): the caller is given a task id, and tasks/get, tasks/cancel and the
 * rest must find that task, on whichever replica they land. So the facade names the task here, before the
 * reply reducer shows it (reply/direct-message.ts opens the caller's task with the message's `taskId`), and
 * records it in the registry under the caller, finished, with the turn's two messages: tasks/get then reads it
 * as it reads any finished task the agent no longer knows (core/lost-task-answers.ts), and replays the same
 * reply from it (task-reply.ts). A caller that named the task by an id of its own has that id bound to this one
 * by the first event naming a task (client-task-ids.ts), as for a task the agent made.
 */

/** The task the caller is shown of the answer: the user's message (without its metadata, where callers put credentials) and the answer. */
function answeredTask(sent: Message, answer: Message): Task {
  const { metadata: _metadata, ...said } = sent;
  const ids = { taskId: answer.taskId, contextId: answer.contextId };
  return {
    id: answer.taskId ?? '',
    contextId: answer.contextId ?? '',
    status: { state: 'TASK_STATE_COMPLETED', message: answer, timestamp: new Date().toISOString() },
    history: [withFields(said, ids), answer],
  };
}

/** The turn's events, a direct Message answer that opens them named and recorded first; a stage (core/stepped-stages.ts). */
class WithTaskRecorded extends SteppedStage<StreamResponse, StreamResponse> {
  #first = true;

  constructor(
    private readonly events: AsyncIterable<StreamResponse>,
    private readonly sent: Message,
    private readonly ctx: CallContext,
    private readonly deps: V025FacadeDeps,
  ) {
    super();
  }

  protected open(): AsyncIterator<StreamResponse> {
    return this.events[Symbol.asyncIterator]();
  }

  protected step(result: IteratorResult<StreamResponse>): Step<StreamResponse> | Promise<Step<StreamResponse>> {
    if (result.done) return { items: [], end: true };
    const event = result.value;
    const opensWithMessage = this.#first && 'message' in event && !event.message.taskId;
    this.#first = false;
    return opensWithMessage ? this.#recorded(event.message) : { items: [event] };
  }

  async #recorded(message: Message): Promise<Step<StreamResponse>> {
    const { sent, ctx, deps } = this;
    const taskId = randomUUID();
    const answer = withFields(message, { taskId, contextId: message.contextId || sent.contextId || taskId });
    // Recorded before the caller reads the id. Best effort: a store that fails it loses tasks/get of the id, not the answer.
    await deps.registry.put(answeredTask(sent, answer), { owner: ctx.principal, upstream: deps.options.upstreamName }).catch(() => undefined);
    return { items: [{ message: answer }] };
  }
}

/** A turn's events, its direct Message answer named and recorded as the task the caller is shown (unchanged under a profile that shows a Message). */
export function directAnswerAsTask(
  events: AsyncIterable<StreamResponse>,
  request: SendMessageRequest,
  ctx: CallContext,
  deps: V025FacadeDeps,
): AsyncIterable<StreamResponse> {
  return deps.profile.options.directMessageAs === 'task' ? new WithTaskRecorded(events, request.message, ctx, deps) : events;
}

import type { TaskAliases } from '../../../core/task-aliases/index.js';
import { SteppedStage, type Step } from '../../../core/stepped-stages.js';
import type { TaskRegistry } from '../../../core/task-registry/types.js';
import { withFields, A2AError, ErrorCode, eventTaskRef, type SendMessageRequest, type StreamResponse } from '../../../model/index.js';

/** How a turn's task is addressed: the request to send upstream, and the id the caller knows the task by. */
export interface TurnTask {
  request: SendMessageRequest;
  /** The caller's own id for the task, when it chose one. */
  clientTaskId?: string;
  /** Wraps the upstream's events so the caller's new id is bound to the task the upstream creates. */
  bind(events: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse>;
}

const taken = (taskId: string): A2AError =>
  new A2AError(ErrorCode.InvalidParams, `Task id ${taskId} is already in use; choose another id`, { metadata: { taskId } });

const unchanged = <T>(events: T): T => events;

/**
 * Client-chosen task ids on the facade. A 0.2.5 client may open a task with an id it made up: the
 * upstream creates the task under its own id, the caller's id is kept as an alias (TaskAliases) and is
 * the task's id for that caller from then on, in both directions.
 *
 * Each principal's ids are its own (the alias store keeps them per owner). Another credential naming an id
 * is answered exactly as for an id nobody holds (a message opens that caller's own task under it, every
 * other method is -32001), so it learns nothing of the first caller's task, not even that the id is in use;
 * the same for an upstream task id another principal owns. Refusing it instead ("already in use") told any
 * credential which ids exist.
 */
export function createClientTaskIds(aliases: TaskAliases, registry: TaskRegistry) {
  return {
    async forTurn(request: SendMessageRequest, principal: string): Promise<TurnTask> {
      const clientTaskId = request.message.taskId;
      const plain = { request, bind: unchanged };
      if (clientTaskId === undefined) return plain;
      const alias = await aliases.lookup(clientTaskId, principal);
      if (alias?.upstream) return { request: withTaskId(request, alias.upstream), clientTaskId, bind: unchanged };
      // The caller's own upstream task, named by the agent's id. Another principal's is an id this caller never had.
      if (!alias && (await registry.ownerOf(clientTaskId)) === principal) return plain;
      // Refused only when another turn of the caller's bound this id since the lookup above.
      if (!(await aliases.claim(clientTaskId, principal))) throw taken(clientTaskId);
      const bind = (events: AsyncIterable<StreamResponse>) => bindFirst(events, (upstreamId) => aliases.bind(clientTaskId, principal, upstreamId));
      return { request: withTaskId(request, undefined), clientTaskId, bind };
    },

    /** A task-addressed call (get, cancel, resubscribe, push configs): the upstream id, and the caller's id to answer with. */
    async forCall(taskId: string, principal: string): Promise<{ upstreamId: string; clientTaskId?: string }> {
      // An id the caller holds no alias for goes on as it is: the task scope answers it, -32001 unless the task is the caller's.
      const upstreamId = (await aliases.lookup(taskId, principal))?.upstream ?? taskId;
      return upstreamId === taskId ? { upstreamId } : { upstreamId, clientTaskId: taskId };
    },

    /** The caller's id of an upstream task (a follow-up by contextId of a task it named itself). */
    clientIdOf: (upstreamId: string, principal: string) => aliases.clientIdOf(upstreamId, principal),
  };
}

export type ClientTaskIds = ReturnType<typeof createClientTaskIds>;

function withTaskId(request: SendMessageRequest, taskId: string | undefined): SendMessageRequest {
  const { taskId: _given, ...message } = request.message;
  return withFields(request, { message: taskId === undefined ? message : withFields(message, { taskId }) });
}

/** Binds the alias when the first event names the upstream's task, before that event goes on. */
function bindFirst(events: AsyncIterable<StreamResponse>, bind: (upstreamId: string) => Promise<void>): AsyncIterable<StreamResponse> {
  return new BoundFirst(events, bind);
}

/** A stage (core/stepped-stages.ts): read through with the layers below it. */
class BoundFirst extends SteppedStage<StreamResponse, StreamResponse> {
  #bound = false;

  constructor(
    private readonly events: AsyncIterable<StreamResponse>,
    private readonly bind: (upstreamId: string) => Promise<void>,
  ) {
    super();
  }

  protected open(): AsyncIterator<StreamResponse> {
    return this.events[Symbol.asyncIterator]();
  }

  protected step(result: IteratorResult<StreamResponse>): Step<StreamResponse> | Promise<Step<StreamResponse>> {
    if (result.done) return { items: [], end: true };
    const event = result.value;
    if (this.#bound) return { items: [event] };
    const { taskId } = eventTaskRef(event);
    if (!taskId) return { items: [event] };
    this.#bound = true;
    return this.bind(taskId).then(() => ({ items: [event] }));
  }
}

import {
  A2AError,
  ErrorCode,
  isTerminalState,
  toA2AError,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskState,
} from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import { countsPerKey } from './counts-per-key.js';
import { deferIterable, tapIterable } from './iterables.js';
import { overlay } from './overlay.js';
import { unlessReopened } from './task-registry/fold.js';
import type { TaskStore } from './task-registry/types.js';
import { tenantField, tenantOf } from './tenants.js';

const terminalError = (taskId: string): A2AError =>
  A2AError.unsupportedOperation(`Task ${taskId} is in a terminal state and cannot be subscribed to`);

/**
 * Whether a subscription to a task in `state` is answered by its Task alone: an input-required turn is
 * over but the task is not terminal, and A2A 1.0 ends a stream at an interrupted state (§11.7), so the
 * Task, question and all, is the whole stream. The agent is not asked: a2a-js would hold the subscription
 * open until the next turn, iac-code refuses it as "not active" (-32001), which told a client coming back
 * for its answer that the task did not exist.
 */
export const endsAtSnapshot = (state: TaskState | undefined): boolean => state === 'TASK_STATE_INPUT_REQUIRED';

export const isTerminal = (state: TaskState | undefined): boolean => state !== undefined && isTerminalState(state);

/**
 * The subscription of a terminal task: nothing is left to follow, so it fails with the spec's
 * UnsupportedOperation. The agent is asked anyway, so an agent that answers -32004 itself (a2a-js) is
 * heard in its own words; any other answer (iac-code: -32001 "not active") becomes the gateway's -32004.
 */
// eslint-disable-next-line require-yield
export async function* refusedAsTerminal(source: AsyncIterable<StreamResponse>, taskId: string): AsyncGenerator<StreamResponse> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    await iterator.next();
  } catch (error) {
    if (toA2AError(error).code === ErrorCode.UnsupportedOperation) throw error;
  } finally {
    await Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
  throw terminalError(taskId);
}

/**
 * A subscription's events with the Task first, as A2A 1.0 requires of SubscribeToTask: an agent that
 * starts with an update instead gets `snapshot` (the task as read just before subscribing) in front.
 */
export async function* taskFirst(source: AsyncIterable<StreamResponse>, snapshot: Task): AsyncGenerator<StreamResponse> {
  let first = true;
  for await (const event of source) {
    if (first && !('task' in event)) yield { task: snapshot };
    first = false;
    yield event;
  }
}

/**
 * SubscribeToTask as A2A 1.0 wants it, over an agent that may not: the task's state is asked of the
 * agent first (the registry may be behind: a turn started by another client, or on a replica whose
 * stream this process never sees; the registry's view when the agent cannot say), then the rules
 * above decide. Sits below the recording decorator, so the snapshot put first is recorded like any event.
 *
 * An input-required task whose answer this process is sending (a follow-up naming it) is followed, not
 * answered with its Task alone: an a2a-js 1.x agent opens the answer's stream with the task as it stands
 * and reads INPUT_REQUIRED to GetTask until its first status update, so a client subscribing meanwhile
 * was shown the question and cut off, where the agent itself streams it the answer.
 */
export function subscribable(inner: AgentPort, registry: Pick<TaskStore, 'get'>): AgentPort {
  /** Follow-ups sent to the agent, per task, whose turn has not reported a state of its own yet. */
  const answering = countsPerKey();

  /** A follow-up's stream, counted in `answering` from its first read to its first status update of the task (or its end). */
  const answered = (taskId: string, open: () => AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> =>
    deferIterable(() => {
      let pending = true;
      const settle = (): void => {
        if (pending) answering.remove(taskId);
        pending = false;
      };
      answering.add(taskId);
      return tapIterable(open(), {
        item: (event) => ('statusUpdate' in event && event.statusUpdate.taskId === taskId ? settle() : undefined),
        end: settle,
      });
    });

  /** Whether a subscription to a task in `state` is its Task alone: input-required, and no answer of this process runs in it. */
  const endsHere = (taskId: string, state: TaskState | undefined): boolean => endsAtSnapshot(state) && answering.of(taskId) === 0;

  /**
   * The task as the agent says it is now, or as recorded when the agent cannot say. When the record holds it
   * finished and the agent has it running, the record stands (`overruled`), as GetTask answers it (recording.ts,
   * `unlessReopened`): the gateway's own reading of the turn finished it (a 0.2.5 answer given as a Message,
   * task-stream.ts), or the agent lost the task and came back.
   */
  async function currentTask(request: SubscribeToTaskRequest, ctx: CallContext): Promise<{ current: Task | undefined; overruled: boolean }> {
    const known = await registry.get(request.id, ctx.principal);
    let agent: Task;
    try {
      agent = await inner.getTask({ id: request.id, historyLength: 0, ...tenantField(tenantOf(request)) }, ctx);
    } catch {
      return { current: known, overruled: false };
    }
    const overruled = known !== undefined && unlessReopened(known, agent) === undefined;
    return { current: overruled ? known : agent, overruled };
  }

  async function* subscribeToTask(request: SubscribeToTaskRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const { current, overruled } = await currentTask(request, ctx);
    // Finished as recorded: the agent, which has the task running and would hold a subscription open, is not asked.
    if (overruled) throw terminalError(request.id);
    const state = current?.status.state;
    if (current && endsHere(request.id, state)) {
      // Whole, as a subscription's first Task is: the state was read without the history.
      const whole = await inner.getTask({ id: request.id, ...tenantField(tenantOf(request)) }, ctx).catch(() => current);
      // A follow-up may have begun a turn between the two reads: that one is followed.
      if (endsHere(request.id, whole.status.state)) {
        yield { task: whole };
        return;
      }
      yield* taskFirst(inner.subscribeToTask(request, ctx), whole);
      return;
    }
    const source = inner.subscribeToTask(request, ctx);
    if (isTerminal(state)) yield* refusedAsTerminal(source, request.id);
    else yield* current ? taskFirst(source, current) : source;
  }

  return overlay(inner, {
    subscribeToTask,
    sendStreamingMessage(request, ctx): AsyncIterable<StreamResponse> {
      const taskId = request.message.taskId;
      return taskId ? answered(taskId, () => inner.sendStreamingMessage(request, ctx)) : inner.sendStreamingMessage(request, ctx);
    },
    async sendMessage(request, ctx) {
      const taskId = request.message.taskId;
      if (!taskId) return inner.sendMessage(request, ctx);
      answering.add(taskId);
      try {
        return await inner.sendMessage(request, ctx);
      } finally {
        answering.remove(taskId);
      }
    },
  });
}

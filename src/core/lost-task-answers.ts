import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2AError,
  isActiveState,
  isTerminalState,
  type CancelTaskRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import { countsPerKey } from './counts-per-key.js';
import { canceledLostTask, createLostTasks, isTaskNotFound, LOST_POLL_MS, lostTask } from './lost-tasks.js';
import { settledCancel } from './settled-cancel.js';
import { unlessReopened } from './task-registry/fold.js';
import type { TaskMeta, TaskStore } from './task-registry/types.js';
import type { TaskWriter } from './task-writer.js';
import { tenantField, tenantOf } from './tenants.js';

export interface LostTaskAnswersDeps {
  /** The port below recording: what the agent answers. */
  inner: AgentPort;
  registry: Pick<TaskStore, 'get'>;
  writer: Pick<TaskWriter, 'record'>;
  metaOf(ctx: CallContext, tenant: string): TaskMeta;
  /** Whether a stream of this process follows the task: it is then the live authority, not the record. */
  streamed(taskId: string): boolean;
  /** A subscription of the agent passed through and recorded, its opening Task shown as GetTask answers it (recording.ts). */
  subscribed(source: AsyncIterable<StreamResponse>, ctx: CallContext, tenant: string): AsyncIterable<StreamResponse>;
  /** Records a Task the agent answered for a task it knows (recording.ts). */
  recordAnswer(task: Task, ctx: CallContext, tenant: string, options: { historyTrimmed: boolean; claimNew: boolean }): Promise<Task>;
  /** How long the agent must keep not knowing a recorded task before it is recorded failed (`tasks.lost-after-ms`). */
  lostAfterMs?: number;
}

/** What every method naming a task answers once the agent says it does not know a task the gateway recorded. */
export interface LostTaskAnswers {
  /** The agent answered for the task: a window of not-founds starts again. */
  found(taskId: string): void;
  /** The record, when the agent does not know the task (GetTask); anything else is the agent's error, thrown. */
  keptWhenLost(error: unknown, request: { id: string; tenant?: string }, ctx: CallContext): Promise<Task>;
  cancelTask(request: CancelTaskRequest, ctx: CallContext): Promise<Task>;
  subscribeToTask(request: SubscribeToTaskRequest, ctx: CallContext): AsyncGenerator<StreamResponse>;
}

/**
 * A task the agent answers TaskNotFound for while nothing of this process streams it (an agent that keeps
 * tasks in memory restarted) answered from the record by every method, so that none contradicts another
 * (docs/core.md, A task the agent lost). Every call this makes to the agent on its own names the task's
 * tenant: the request's, which task-scope.ts checked against the record.
 */
export function createLostTaskAnswers(deps: LostTaskAnswersDeps): LostTaskAnswers {
  const { inner, registry, writer, metaOf, streamed, subscribed, recordAnswer } = deps;
  const lostTasks = createLostTasks(deps.lostAfterMs);
  /** The cancels waiting on a task the agent does not know, per task: it is lost as canceled, by whichever call sees it so. */
  const canceling = countsPerKey();
  /** How long a call that follows a task the agent does not know waits before it asks the agent again. */
  const pollMs = Math.min(LOST_POLL_MS, deps.lostAfterMs ?? LOST_POLL_MS);

  /** The agent's Task as it is now, without history, asked in the task's tenant. */
  const askAgent = (taskId: string, tenant: string, ctx: CallContext): Promise<Task> =>
    inner.getTask({ id: taskId, historyLength: 0, ...tenantField(tenant) }, ctx);

  /**
   * The recorded task, when the agent answers that it does not know it and nothing streams it: what was
   * accepted is not lost with the agent's memory. One the agent keeps not knowing for `lost-after-ms` can
   * no longer finish there and is recorded as failed (lost-tasks.ts). Anything else is the agent's error, thrown.
   */
  async function keptWhenLost(error: unknown, request: { id: string; tenant?: string }, ctx: CallContext): Promise<Task> {
    const { id: taskId } = request;
    const kept = isTaskNotFound(error) && !streamed(taskId) ? await registry.get(taskId, ctx.principal) : undefined;
    if (!kept) throw error;
    if (!lostTasks.notFound(taskId)) return kept;
    // A cancel waits on the same window: the task it asked to cancel is recorded canceled, whichever call sees it lost.
    const settled = canceling.of(taskId) > 0 ? canceledLostTask(kept) : lostTask(kept);
    if (settled !== kept) await writer.record({ task: settled }, metaOf(ctx, tenantOf(request)), taskId);
    return settled;
  }

  /**
   * Whether the agent, asked for the task, says it does not know it. Another method's -32001 is not enough:
   * iac-code and a2a-js answer "Task ... is not active" with that code for a task they know (an input-required
   * or finished one), and `subscribable` refuses so too. An answer means the agent knows the task: a window
   * of not-founds (lostTasks) starts again.
   */
  async function agentForgot(taskId: string, tenant: string, ctx: CallContext): Promise<boolean> {
    try {
      await askAgent(taskId, tenant, ctx);
      lostTasks.found(taskId);
      return false;
    } catch (error) {
      return isTaskNotFound(error);
    }
  }

  /**
   * CancelTask, asked of the agent again while it does not know a recorded unfinished task nothing streams
   * (canceledWhenLost), until it knows the task again (its own answer relayed once settled, settled-cancel.ts)
   * or the task is lost: a caller is never told a task is canceled that the agent may still run.
   */
  async function cancelTask(request: CancelTaskRequest, ctx: CallContext): Promise<Task> {
    if (await finishedInRecord(request, ctx)) throw A2AError.taskNotCancelable(request.id);
    let waiting = false;
    try {
      for (;;) {
        let task: Task;
        try {
          task = await inner.cancelTask(request, ctx);
        } catch (error) {
          const canceled = await canceledWhenLost(error, request, ctx, waiting);
          if (canceled) return canceled;
          if (!waiting) canceling.add(request.id);
          waiting = true;
          // One whose caller left runs on (outlivesCaller, operations.ts); a shutdown ends it with its error, nothing recorded.
          await sleep(pollMs, undefined, { signal: ctx.signal }).catch((aborted: unknown) => {
            throw ctx.signal.reason ?? aborted;
          });
          continue;
        }
        lostTasks.found(task.id);
        const settled = await settledCancel(task, () => inner.getTask({ id: task.id, ...tenantField(tenantOf(request)) }, ctx), ctx.signal);
        return await recordAnswer(settled, ctx, tenantOf(request), { historyTrimmed: false, claimNew: false });
      }
    } finally {
      if (waiting) canceling.remove(request.id);
    }
  }

  /**
   * Whether the record holds the task finished while the agent says it runs: the record stands, as GetTask
   * answers it (recording.ts, `unlessReopened`), so the task is not cancelable and the agent is not asked to
   * cancel it (a2a-js 0.2.5 would, and the completed record would be rewritten canceled). The agent is asked
   * for its state only about a task recorded finished; one that agrees, or cannot say, answers the cancel itself.
   */
  async function finishedInRecord(request: CancelTaskRequest, ctx: CallContext): Promise<boolean> {
    const kept = await registry.get(request.id, ctx.principal);
    if (!kept || !isTerminalState(kept.status.state)) return false;
    const agent = await askAgent(request.id, tenantOf(request), ctx).catch(() => undefined);
    return agent !== undefined && unlessReopened(kept, agent) === undefined;
  }

  /**
   * A CancelTask the agent answered TaskNotFound for, of a recorded task nothing streams: one recorded finished
   * (lost ones recorded failed included) is not cancelable, as GetTask tells it finished. One still unfinished
   * is recorded canceled and answered so (canceledLostTask) only once it is lost by the rule GetTask follows:
   * the agent has kept not knowing it for `lost-after-ms` (lost-tasks.ts). Until then it may be a blink (a
   * replica that did not know the task for a moment, a proxy's 404 page) while the agent runs the task on, so
   * nothing is answered yet (undefined: ask the agent again). Anything else is thrown.
   */
  async function canceledWhenLost(error: unknown, request: CancelTaskRequest, ctx: CallContext, waited: boolean): Promise<Task | undefined> {
    const { id: taskId } = request;
    const tenant = tenantOf(request);
    const kept = isTaskNotFound(error) && !streamed(taskId) ? await registry.get(taskId, ctx.principal) : undefined;
    // Lost while this cancel waited, seen so by another call (keptWhenLost): canceled as asked.
    if (waited && kept?.status.state === 'TASK_STATE_CANCELED') return kept;
    if (kept && isTerminalState(kept.status.state)) throw A2AError.taskNotCancelable(taskId);
    if (!kept || !(await agentForgot(taskId, tenant, ctx))) throw error;
    if (!lostTasks.notFound(taskId)) return undefined;
    const canceled = canceledLostTask(kept);
    await writer.record({ task: canceled }, metaOf(ctx, tenant), taskId);
    return canceled;
  }

  /**
   * SubscribeToTask, and when the agent answers at once that it does not know a recorded running task
   * nothing streams, the task followed from the record instead, as A2A 1.0 §3.1.6 wants a subscription:
   * the Task as recorded first, then the agent asked again every LOST_POLL_MS until it knows the task
   * (followedOnceFound) or the task is lost (its failure sent, which ends the stream, as a terminal state
   * must). GetTask answers the same in the meantime. An input-required task is answered below with its Task alone (`subscribable`).
   */
  async function* subscribeToTask(request: SubscribeToTaskRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const tenant = tenantOf(request);
    let relayed = false;
    try {
      for await (const event of subscribed(inner.subscribeToTask(request, ctx), ctx, tenant)) {
        relayed = true;
        yield event;
      }
      return;
    } catch (error) {
      const running = !relayed && isTaskNotFound(error) && !streamed(request.id) ? await registry.get(request.id, ctx.principal) : undefined;
      if (!running || !isActiveState(running.status.state) || !(await agentForgot(request.id, tenant, ctx))) throw error;
      yield { task: running };
      yield* followedFromRecord(error, request, ctx);
    }
  }

  async function* followedFromRecord(notFound: unknown, request: SubscribeToTaskRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const { id: taskId } = request;
    for (let error = notFound; ;) {
      const kept = await keptWhenLost(error, request, ctx);
      if (isTerminalState(kept.status.state)) {
        yield { statusUpdate: { taskId, contextId: kept.contextId ?? '', status: kept.status } };
        return;
      }
      await sleep(pollMs, undefined, { signal: ctx.signal });
      let found: Task;
      try {
        found = await askAgent(taskId, tenantOf(request), ctx);
      } catch (stillMissing) {
        error = stillMissing;
        continue;
      }
      yield* followedOnceFound(found, request, ctx);
      return;
    }
  }

  /**
   * The agent knows the task again: its own subscription relayed while it runs; one that stopped running
   * meanwhile (finished, or waiting for input) is recorded and its status sent, which ends the stream.
   */
  async function* followedOnceFound(found: Task, request: SubscribeToTaskRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const tenant = tenantOf(request);
    lostTasks.found(found.id);
    if (isActiveState(found.status.state)) {
      yield* subscribed(inner.subscribeToTask(request, ctx), ctx, tenant);
      return;
    }
    await recordAnswer(found, ctx, tenant, { historyTrimmed: true, claimNew: false });
    yield { statusUpdate: { taskId: found.id, contextId: found.contextId ?? '', status: found.status } };
  }

  return { found: (taskId) => lostTasks.found(taskId), keptWhenLost, cancelTask, subscribeToTask };
}

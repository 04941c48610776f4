import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2AError,
  eventTaskRef,
  isActiveState,
  isTerminalState,
  withHistoryLength,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type Message,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import type { AdmittedPort, Entry } from './admission.js';
import { openingMessage, snapshotToStore } from './first-message.js';
import { countsPerKey } from './counts-per-key.js';
import { canceledLostTask, createLostTasks, isTaskNotFound, LOST_POLL_MS, lostTask } from './lost-tasks.js';
import { tapIterable } from './iterables.js';
import { createOpenStreams } from './open-streams.js';
import { createStaleTasks } from './stale-tasks.js';
import { overlay } from './overlay.js';
import type { Redaction } from './redact.js';
import type { TaskMeta, TaskStore } from './task-registry/types.js';
import type { TaskWriter } from './task-writer.js';

const FOREIGN_TASK = "The upstream agent answered with another caller's task";

export interface RecordingDeps {
  registry: Pick<TaskStore, 'get' | 'ownerOf' | 'list'>;
  writer: TaskWriter;
  /** The caller's own messages (a follow-up, a new task's opening message) are stored redacted too. */
  redaction: Redaction;
  metaOf(ctx: CallContext): TaskMeta;
  /** How long the agent must keep not knowing a recorded task before it is recorded failed (`tasks.lost-after-ms`). */
  lostAfterMs?: number;
}

/**
 * Every task that passes through recorded in the gateway's registry, without delaying any event:
 * streams are folded and persisted by the task writer (task-writer.ts, which says when it writes),
 * answers are stored as they come. When two streams follow one task (a send's stream and a
 * subscription), only the first records (open-streams.ts). ListTasks is always answered from the
 * registry, also for 1.0 agents: an agent that sees one gateway credential would list every caller's tasks;
 * the agent is only asked about tasks last seen running that nobody watches (stale-tasks.ts).
 */
export function recording(inner: AgentPort, deps: RecordingDeps): AdmittedPort {
  const { registry, writer, redaction, metaOf } = deps;
  const openStreams = createOpenStreams();
  const staleTasks = createStaleTasks((taskId) => openStreams.has(taskId));
  const lostTasks = createLostTasks(deps.lostAfterMs);
  /** The cancels waiting on a task the agent does not know, per task: it is lost as canceled, by whichever call sees it so. */
  const canceling = countsPerKey();
  /** How long a call that follows a task the agent does not know waits before it asks the agent again. */
  const pollMs = Math.min(LOST_POLL_MS, deps.lostAfterMs ?? LOST_POLL_MS);

  /**
   * Record a Task answer (SendMessage, GetTask, CancelTask). A task the registry does not know is
   * only claimed for the caller when the caller created it (`claimNew`); while a stream of the task
   * is open, the stream is the live authority and an answer could only move the state backwards.
   */
  async function recordAnswer(
    task: Task,
    ctx: CallContext,
    options: { historyTrimmed: boolean; claimNew: boolean; opening?: Message },
    known?: { owner: string | undefined },
  ): Promise<void> {
    if (openStreams.has(task.id)) return;
    const owner = known ? known.owner : await registry.ownerOf(task.id);
    if (owner === undefined ? !options.claimNew : owner !== ctx.principal) return;
    const stored = owner === undefined ? undefined : await registry.get(task.id, ctx.principal);
    await writer.record({ task: snapshotToStore(task, stored, options) }, metaOf(ctx), task.id);
  }

  /**
   * The owner of a task the agent answered with, which must be the caller or nobody yet: an agent that mixed
   * up its tasks must not show one caller another's (-32006, nothing of it relayed).
   */
  async function ownerFor(taskId: string, ctx: CallContext): Promise<{ owner: string | undefined }> {
    const owner = await registry.ownerOf(taskId);
    if (owner !== undefined && owner !== ctx.principal) throw A2AError.invalidAgentResponse(FOREIGN_TASK);
    return { owner };
  }

  /** A stream's events, each task it names checked the first time (ownerFor). */
  function ownEvents(source: AsyncIterable<StreamResponse>, ctx: CallContext): AsyncIterable<StreamResponse> {
    const checked: string[] = [];
    return tapIterable(source, {
      item(event) {
        const { taskId } = eventTaskRef(event);
        if (!taskId || checked.includes(taskId)) return;
        checked.push(taskId);
        return ownerFor(taskId, ctx);
      },
    });
  }

  /** A stream passed through, each event folded into its task the moment it arrives. */
  function recorded(source: AsyncIterable<StreamResponse>, ctx: CallContext, followUp?: Message): AsyncIterable<StreamResponse> {
    let pendingFollowUp = followUp;
    const meta = metaOf(ctx);
    return openStreams.follow(
      ownEvents(source, ctx),
      (event, taskId) => {
        if (pendingFollowUp && pendingFollowUp.taskId === taskId && !('task' in event)) {
          // The caller's follow-up joins the history first, as the SDK's task manager does.
          writer.fold({ message: redaction.message(pendingFollowUp) }, meta, taskId);
        }
        pendingFollowUp = undefined;
        writer.fold(event, meta, taskId);
      },
      // Ended, failed or aborted: the last fold is written, and waited for.
      (led) => Promise.all(led.map((taskId) => writer.end(taskId))),
    );
  }

  async function getTask(request: GetTaskRequest, ctx: CallContext): Promise<Task> {
    let task: Task;
    try {
      task = await inner.getTask(request, ctx);
    } catch (error) {
      return withHistoryLength(await keptWhenLost(error, request.id, ctx), request.historyLength);
    }
    lostTasks.found(task.id);
    await recordAnswer(task, ctx, { historyTrimmed: request.historyLength !== undefined, claimNew: false });
    return task;
  }

  /**
   * The recorded task, when the agent answers that it does not know it and nothing streams it: what was
   * accepted is not lost with the agent's memory. One the agent keeps not knowing for `lost-after-ms` can
   * no longer finish there and is recorded as failed (lost-tasks.ts). Anything else is the agent's error, thrown.
   */
  async function keptWhenLost(error: unknown, taskId: string, ctx: CallContext): Promise<Task> {
    const recorded = isTaskNotFound(error) && !openStreams.has(taskId) ? await registry.get(taskId, ctx.principal) : undefined;
    if (!recorded) throw error;
    if (!lostTasks.notFound(taskId)) return recorded;
    // A cancel waits on the same window: the task it asked to cancel is recorded canceled, whichever call sees it lost.
    const kept = canceling.of(taskId) > 0 ? canceledLostTask(recorded) : lostTask(recorded);
    if (kept !== recorded) await writer.record({ task: kept }, metaOf(ctx), taskId);
    return kept;
  }

  /**
   * Whether the agent, asked for the task, says it does not know it. Another method's -32001 is not enough:
   * iac-code and a2a-js answer "Task ... is not active" with that code for a task they know (an input-required
   * or finished one), and `subscribable` refuses so too. An answer means the agent knows the task: a window
   * of not-founds (lostTasks) starts again.
   */
  async function agentForgot(taskId: string, ctx: CallContext, tenant?: string): Promise<boolean> {
    try {
      await inner.getTask({ id: taskId, historyLength: 0, ...(tenant ? { tenant } : {}) }, ctx);
      lostTasks.found(taskId);
      return false;
    } catch (error) {
      return isTaskNotFound(error);
    }
  }

  /**
   * CancelTask, asked of the agent again while it does not know a recorded unfinished task nothing streams
   * (canceledWhenLost), until it knows the task again (its own answer relayed) or the task is lost: a caller
   * is never told a task is canceled that the agent may still run.
   */
  async function cancelTask(request: CancelTaskRequest, ctx: CallContext): Promise<Task> {
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
        await recordAnswer(task, ctx, { historyTrimmed: false, claimNew: false });
        return task;
      }
    } finally {
      if (waiting) canceling.remove(request.id);
    }
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
    const recorded = isTaskNotFound(error) && !openStreams.has(taskId) ? await registry.get(taskId, ctx.principal) : undefined;
    // Lost while this cancel waited, seen so by another call (keptWhenLost): canceled as asked.
    if (waited && recorded?.status.state === 'TASK_STATE_CANCELED') return recorded;
    if (recorded && isTerminalState(recorded.status.state)) throw A2AError.taskNotCancelable(taskId);
    if (!recorded || !(await agentForgot(taskId, ctx, request.tenant))) throw error;
    if (!lostTasks.notFound(taskId)) return undefined;
    const canceled = canceledLostTask(recorded);
    await writer.record({ task: canceled }, metaOf(ctx), taskId);
    return canceled;
  }

  /**
   * SubscribeToTask, and when the agent answers at once that it does not know a recorded running task
   * nothing streams, the task followed from the record instead, as A2A 1.0 §3.1.6 wants a subscription:
   * the Task as recorded first, then the agent asked again every LOST_POLL_MS until it knows the task
   * (followedOnceFound) or the task is lost (its failure sent, which ends the stream, as a terminal state
   * must). GetTask answers the same in the meantime. An input-required task is answered below with its Task alone (`subscribable`).
   */
  async function* subscribedOrKept(request: SubscribeToTaskRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    let relayed = false;
    try {
      for await (const event of recorded(inner.subscribeToTask(request, ctx), ctx)) {
        relayed = true;
        yield event;
      }
      return;
    } catch (error) {
      const running = !relayed && isTaskNotFound(error) && !openStreams.has(request.id) ? await registry.get(request.id, ctx.principal) : undefined;
      if (!running || !isActiveState(running.status.state) || !(await agentForgot(request.id, ctx, request.tenant))) throw error;
      yield { task: running };
      yield* followedFromRecord(error, request, ctx);
    }
  }

  async function* followedFromRecord(notFound: unknown, request: SubscribeToTaskRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const { id: taskId, tenant } = request;
    for (let error = notFound; ;) {
      const kept = await keptWhenLost(error, taskId, ctx);
      if (isTerminalState(kept.status.state)) {
        yield { statusUpdate: { taskId, contextId: kept.contextId ?? '', status: kept.status } };
        return;
      }
      await sleep(pollMs, undefined, { signal: ctx.signal });
      let found: Task;
      try {
        found = await inner.getTask({ id: taskId, historyLength: 0, ...(tenant ? { tenant } : {}) }, ctx);
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
    lostTasks.found(found.id);
    if (isActiveState(found.status.state)) {
      yield* recorded(inner.subscribeToTask(request, ctx), ctx);
      return;
    }
    await recordAnswer(found, ctx, { historyTrimmed: true, claimNew: false });
    yield { statusUpdate: { taskId: found.id, contextId: found.contextId ?? '', status: found.status } };
  }

  return overlay(inner, {
    async sendMessage(request, ctx, entry?: Entry): Promise<SendMessageResponse> {
      const response = await inner.sendMessage(request, ctx);
      const { taskId } = eventTaskRef(response);
      if (!taskId || entry?.ridesAlong) return response;
      if ('task' in response) {
        const known = await ownerFor(response.task.id, ctx);
        const historyTrimmed = request.configuration?.historyLength !== undefined;
        const opening = request.message.taskId ? undefined : redaction.message(openingMessage(request.message, response.task));
        await recordAnswer(response.task, ctx, { historyTrimmed, claimNew: true, opening }, known);
      } else {
        await writer.record(response, metaOf(ctx), taskId);
      }
      return response;
    },

    sendStreamingMessage(request, ctx, entry?: Entry) {
      const followUp = request.message.taskId && !entry?.ridesAlong ? request.message : undefined;
      return recorded(inner.sendStreamingMessage(request, ctx), ctx, followUp);
    },

    subscribeToTask: subscribedOrKept,

    getTask,

    cancelTask,

    async listTasks(request, ctx) {
      // What this process has folded but not yet written is listed too.
      await writer.settledAll();
      const list = (listed: ListTasksRequest) => registry.list(listed, ctx.principal);
      const ask = (task: Task) => getTask({ id: task.id, historyLength: 0 }, ctx);
      return staleTasks.listFresh(request, list, ask);
    },
  });
}

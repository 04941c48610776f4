import type { Logger } from 'pino';
import {
  A2AError,
  ErrorCode,
  eventTaskRef,
  isInterruptedState,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import { contextBusyError, createContextLanes, type ContextLanes, type Lease } from './context-lanes.js';
import { openingMessage, snapshotToStore } from './first-message.js';
import { redactEvent, redactMessage, redactTask } from './redact.js';
import { assertSubscribable, isTerminal, refusedAsTerminal, taskFirst } from './subscribable.js';
import { createTaskEventHub, type TaskEventHub } from './task-event-hub.js';
import { withHistoryLength } from './task-registry/query.js';
import type { TaskMeta, TaskRegistry } from './task-registry/types.js';

export interface GatewayDeps {
  registry: TaskRegistry;
  lanes?: ContextLanes;
  hub?: TaskEventHub;
  upstreamName: string;
  /** The upstream cannot answer GetTask itself (0.2.5): the registry does. */
  ownsTaskQueries: boolean;
  logger?: Logger;
}

export type Gateway = AgentPort & {
  events: TaskEventHub;
  /** Resolves once every registry write queued for the task so far is done (push reads snapshots after it). */
  settled(taskId: string): Promise<void>;
};

/** What a relayed stream reads and how it holds its context's lane. */
interface RelayPlan {
  source: AsyncIterable<StreamResponse>;
  lease?: Lease;
  takeLaneOnContext: boolean;
  followUp?: Message;
}

/** How a message may enter its context: holding the lane, or riding along a paused turn (permission answer). */
interface Admission {
  lease?: Lease;
  ridesAlong: boolean;
}

/**
 * The core: an AgentPort around the upstream's that scopes tasks to the caller's principal,
 * runs one turn per context, records every task in the registry, redacts echoed secrets and
 * fans events out to in-process subscribers.
 *
 * Registry writes are fire-and-track: each event is queued on a per-task promise chain (so writes
 * keep their order and a Redis round trip never delays the event) and yielded at once. Reads of a
 * task first wait for its chain, and a stream waits for its writes before it frees the context
 * lane, so the next turn and every in-process reader see the finished state. Write errors are
 * logged, never thrown into the stream.
 *
 * ListTasks is always answered from the registry, also for 1.0 upstreams: an upstream that sees
 * one gateway credential would otherwise list every caller's tasks.
 */
export function createGateway(upstream: AgentPort, deps: GatewayDeps): Gateway {
  const { registry, upstreamName, logger } = deps;
  const lanes = deps.lanes ?? createContextLanes();
  const hub = deps.hub ?? createTaskEventHub();
  const writeTails = new Map<string, Promise<void>>();
  /** Open streams per task, in arrival order; the first one records and publishes (no duplicates). */
  const openStreams = new Map<string, Set<symbol>>();

  const metaOf = (ctx: CallContext): TaskMeta => ({ owner: ctx.principal, upstream: upstreamName });
  const laneKey = (contextId: string) => `${upstreamName}\u0000${contextId}`;

  function record(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void> {
    const previous = writeTails.get(taskId) ?? Promise.resolve();
    const write = previous
      .then(() => registry.apply(event, meta))
      .then(
        () => undefined,
        (error: unknown) => logger?.warn({ err: error, taskId }, 'task registry write failed'),
      );
    writeTails.set(taskId, write);
    void write.then(() => {
      if (writeTails.get(taskId) === write) writeTails.delete(taskId);
    });
    return write;
  }

  /** Wait for queued writes of a task, so a read sees every event relayed so far. */
  const settled = async (taskId: string) => writeTails.get(taskId);

  /** A task known under another principal does not exist for this caller (iac-code scoping). */
  async function assertVisible(taskId: string, ctx: CallContext): Promise<void> {
    const owner = await registry.ownerOf(taskId);
    if (owner !== undefined && owner !== ctx.principal) throw A2AError.taskNotFound(taskId);
  }

  /**
   * Record a Task answer (SendMessage, GetTask, CancelTask). A task the registry does not know is
   * only claimed for the caller when the caller created it (`claimNew`); while a stream of the task
   * is open, the stream is the live authority and an answer could only move the state backwards.
   */
  async function recordAnswer(
    task: Task,
    ctx: CallContext,
    options: { historyTrimmed: boolean; claimNew: boolean; opening?: Message },
  ): Promise<void> {
    if (openStreams.has(task.id)) return;
    const owner = await registry.ownerOf(task.id);
    if (owner === undefined ? !options.claimNew : owner !== ctx.principal) return;
    const stored = owner === undefined ? undefined : await registry.get(task.id, ctx.principal);
    await record({ task: snapshotToStore(task, stored, options) }, metaOf(ctx), task.id);
  }

  async function admit(message: Message, ctx: CallContext): Promise<Admission> {
    let contextId = message.contextId;
    if (message.taskId) {
      await settled(message.taskId);
      await assertVisible(message.taskId, ctx);
      const task = await registry.get(message.taskId, ctx.principal);
      contextId ??= task?.contextId;
      // iac-code's permission answer joins the paused turn whose stream still holds the lane.
      if (task && contextId && isInterruptedState(task.status.state) && (await lanes.holderTask(laneKey(contextId))) === task.id) {
        return { ridesAlong: true };
      }
    }
    if (!contextId) return { ridesAlong: false };
    const contextOwner = await registry.contextOwner(contextId);
    if (contextOwner !== undefined && contextOwner !== ctx.principal) {
      throw new A2AError(ErrorCode.InvalidParams, `Context ${contextId} is not available; start a new context`, {
        metadata: { contextId },
      });
    }
    const lease = await lanes.tryAcquire(laneKey(contextId), message.taskId);
    if (!lease) throw contextBusyError(contextId);
    return { lease, ridesAlong: false };
  }

  /**
   * Pass a stream through: redact, record, publish, yield each event the moment it arrives.
   * Leaving early (consumer `return()`) exits the for-await, which returns the upstream iterator.
   * `open` (admission, then the upstream call) runs on the first pull, inside this one generator:
   * a generator per layer would cost every open stream its own pending promises.
   */
  async function* relay(ctx: CallContext, open: () => Promise<RelayPlan>): AsyncGenerator<StreamResponse> {
    const { source, ...options } = await open();
    const self = Symbol('stream');
    const meta = metaOf(ctx);
    const lastWrites = new Map<string, Promise<void>>();
    const joined = new Set<string>();
    let lease = options.lease;
    let takeLane = options.takeLaneOnContext && !lease;
    let followUp = options.followUp;
    try {
      for await (const upstreamEvent of source) {
        const event = redactEvent(upstreamEvent);
        const { taskId, contextId } = eventTaskRef(event);
        if (takeLane && contextId) {
          // A new context became known: from now on a concurrent message on it is rejected. Taken before
          // the event is yielded, so no caller can know the context before its lane is held.
          takeLane = false;
          lease = await lanes.tryAcquire(laneKey(contextId), taskId).catch((error: unknown) => {
            logger?.warn({ err: error, contextId }, 'context lane could not be taken');
            return undefined;
          });
        }
        if (lease && taskId && !lease.taskId) lease.bindTask(taskId);
        if (taskId) {
          let streams = openStreams.get(taskId);
          if (!streams) openStreams.set(taskId, (streams = new Set()));
          streams.add(self);
          joined.add(taskId);
          if (streams.values().next().value === self) {
            if (followUp && followUp.taskId === taskId && !('task' in event)) {
              // The caller's follow-up joins the history first, as the SDK's task manager does.
              void record({ message: redactMessage(followUp) }, meta, taskId);
            }
            followUp = undefined;
            lastWrites.set(taskId, record(event, meta, taskId));
            hub.publish(event);
          }
        }
        yield event;
      }
    } finally {
      await Promise.all(lastWrites.values());
      for (const taskId of joined) {
        const streams = openStreams.get(taskId);
        if (!streams?.delete(self) || streams.size > 0) continue;
        openStreams.delete(taskId);
        hub.end(taskId);
      }
      await lease?.release();
    }
  }

  function sendStreamingMessage(request: SendMessageRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    return relay(ctx, async () => {
      const admission = await admit(request.message, ctx);
      let source: AsyncIterable<StreamResponse>;
      try {
        source = upstream.sendStreamingMessage(request, ctx);
      } catch (error) {
        await admission.lease?.release();
        throw error;
      }
      return {
        source,
        lease: admission.lease,
        takeLaneOnContext: !admission.ridesAlong,
        followUp: request.message.taskId && !admission.ridesAlong ? request.message : undefined,
      };
    });
  }

  /**
   * The task's state now: the upstream's (the registry may be behind: a turn started by another client,
   * or on a replica whose stream this process never sees), else the registry's view.
   */
  async function currentTask(request: Parameters<AgentPort['subscribeToTask']>[0], ctx: CallContext): Promise<Task | undefined> {
    const known = await registry.get(request.id, ctx.principal);
    if (deps.ownsTaskQueries) return known;
    const { tenant } = request;
    try {
      return await upstream.getTask({ id: request.id, historyLength: 0, ...(tenant ? { tenant } : {}) }, ctx);
    } catch {
      return known;
    }
  }

  function subscribeToTask(request: Parameters<AgentPort['subscribeToTask']>[0], ctx: CallContext): AsyncGenerator<StreamResponse> {
    return relay(ctx, async () => {
      await settled(request.id);
      await assertVisible(request.id, ctx);
      const current = await currentTask(request, ctx);
      const state = current?.status.state;
      assertSubscribable(request.id, state);
      const source = upstream.subscribeToTask(request, ctx);
      if (isTerminal(state)) return { source: refusedAsTerminal(source, request.id), takeLaneOnContext: false };
      return { source: current ? taskFirst(source, current) : source, takeLaneOnContext: false };
    });
  }

  return {
    events: hub,
    settled: async (taskId) => {
      await settled(taskId);
    },

    async sendMessage(request, ctx): Promise<SendMessageResponse> {
      const admission = await admit(request.message, ctx);
      try {
        const response = redactEvent(await upstream.sendMessage(request, ctx)) as SendMessageResponse;
        const { taskId } = eventTaskRef(response);
        if (taskId && !admission.ridesAlong) {
          if ('task' in response) {
            const historyTrimmed = request.configuration?.historyLength !== undefined;
            const opening = request.message.taskId ? undefined : redactMessage(openingMessage(request.message, response.task));
            await recordAnswer(response.task, ctx, { historyTrimmed, claimNew: true, opening });
          } else {
            await record(response, metaOf(ctx), taskId);
          }
          hub.publish(response);
          if (!openStreams.has(taskId)) hub.end(taskId);
        }
        return response;
      } finally {
        await admission.lease?.release();
      }
    },

    sendStreamingMessage,

    async getTask(request, ctx): Promise<Task> {
      await settled(request.id);
      if (deps.ownsTaskQueries) {
        const task = await registry.get(request.id, ctx.principal);
        if (!task) throw A2AError.taskNotFound(request.id);
        return withHistoryLength(task, request.historyLength);
      }
      await assertVisible(request.id, ctx);
      const task = redactTask(await upstream.getTask(request, ctx));
      await recordAnswer(task, ctx, { historyTrimmed: request.historyLength !== undefined, claimNew: false });
      return task;
    },

    listTasks: (request, ctx) => registry.list(request, ctx.principal),

    async cancelTask(request, ctx): Promise<Task> {
      await settled(request.id);
      await assertVisible(request.id, ctx);
      const task = redactTask(await upstream.cancelTask(request, ctx));
      await recordAnswer(task, ctx, { historyTrimmed: false, claimNew: false });
      return task;
    },

    subscribeToTask,

    // Push configs are forwarded for now (the gateway will own push delivery later); only scoping applies.
    async createTaskPushNotificationConfig(request, ctx) {
      await assertVisible(request.taskId, ctx);
      return upstream.createTaskPushNotificationConfig(request, ctx);
    },
    async getTaskPushNotificationConfig(request, ctx) {
      await assertVisible(request.taskId, ctx);
      return upstream.getTaskPushNotificationConfig(request, ctx);
    },
    async listTaskPushNotificationConfigs(request, ctx) {
      await assertVisible(request.taskId, ctx);
      return upstream.listTaskPushNotificationConfigs(request, ctx);
    },
    async deleteTaskPushNotificationConfig(request, ctx) {
      await assertVisible(request.taskId, ctx);
      return upstream.deleteTaskPushNotificationConfig(request, ctx);
    },

    getExtendedAgentCard: (ctx) => upstream.getExtendedAgentCard(ctx),
  };
}

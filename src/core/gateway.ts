import type { Logger } from 'pino';
import { eventTaskRef, type Message, type SendMessageRequest, type SendMessageResponse, type StreamResponse, type Task } from '../model/index.js';
import { contextAdmission } from './admission.js';
import type { AgentPort, CallContext, SettlingPort } from './agent-port.js';
import { createContextLanes, type ContextLanes } from './context-lanes.js';
import { openingMessage, snapshotToStore } from './first-message.js';
import { createOpenStreams } from './open-streams.js';
import { redactEvent, redactMessage, redactTask } from './redact.js';
import { createRelay } from './relay.js';
import { assertSubscribable, isTerminal, refusedAsTerminal, taskFirst } from './subscribable.js';
import { createTaskEventHub, type TaskEventHub } from './task-event-hub.js';
import type { TaskMeta, TaskRegistry } from './task-registry/types.js';
import { scopedPushConfigs, taskScope } from './task-scope.js';
import { createWriteChains } from './write-chains.js';

export interface GatewayDeps {
  registry: TaskRegistry;
  lanes?: ContextLanes;
  hub?: TaskEventHub;
  upstreamName: string;
  logger?: Logger;
}

export type Gateway = SettlingPort & { events: TaskEventHub };

/**
 * The core: an AgentPort around the upstream's, composed here from one module per concern:
 *
 * - task-scope.ts: a task known under another principal does not exist for this caller;
 * - admission.ts: one turn per context (context-lanes.ts), only in the caller's own contexts;
 * - write-chains.ts: every task recorded in the registry in event order, without delaying the event;
 * - open-streams.ts: two streams of one task record and publish each event once;
 * - relay.ts: a stream passed through, redacted (redact.ts), recorded and published to in-process
 *   subscribers (task-event-hub.ts) the moment each event arrives.
 *
 * Reads of a task first wait for its queued writes (`settled`). ListTasks is always answered from the
 * registry, also for 1.0 upstreams: an upstream that sees one gateway credential would otherwise list
 * every caller's tasks.
 */
export function createGateway(upstream: AgentPort, deps: GatewayDeps): Gateway {
  const { registry, upstreamName, logger } = deps;
  const lanes = deps.lanes ?? createContextLanes();
  const hub = deps.hub ?? createTaskEventHub();
  const laneKey = (contextId: string) => `${upstreamName}\u0000${contextId}`;
  const metaOf = (ctx: CallContext): TaskMeta => ({ owner: ctx.principal, upstream: upstreamName });

  const assertVisible = taskScope(registry);
  const writes = createWriteChains(registry, logger);
  const { settled } = writes;
  const openStreams = createOpenStreams();
  const admit = contextAdmission({ registry, lanes, laneKey, settled, assertVisible });
  const relay = createRelay({ lanes, laneKey, writes, openStreams, hub, ...(logger ? { logger } : {}) });

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
    await writes.record({ task: snapshotToStore(task, stored, options) }, metaOf(ctx), task.id);
  }

  function sendStreamingMessage(request: SendMessageRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    return relay(metaOf(ctx), async () => {
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
    const { tenant } = request;
    try {
      return await upstream.getTask({ id: request.id, historyLength: 0, ...(tenant ? { tenant } : {}) }, ctx);
    } catch {
      return known;
    }
  }

  function subscribeToTask(request: Parameters<AgentPort['subscribeToTask']>[0], ctx: CallContext): AsyncGenerator<StreamResponse> {
    return relay(metaOf(ctx), async () => {
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
    settled,

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
            await writes.record(response, metaOf(ctx), taskId);
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
    ...scopedPushConfigs(upstream, assertVisible),
    getExtendedAgentCard: (ctx) => upstream.getExtendedAgentCard(ctx),
  };
}

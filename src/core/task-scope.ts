import { A2AError, type StreamResponse } from '../model/index.js';
import type { AgentPort, CallContext, Settling } from './agent-port.js';
import { deferIterable } from './iterables.js';
import { overlay } from './overlay.js';
import type { TaskStore } from './task-registry/types.js';
import { tenantOf } from './tenants.js';

/**
 * Who answers for a task the registry does not know (never seen here, evicted, expired, or lost with a
 * memory store's restart): the agent, or nobody (TaskNotFound). The gateway cannot tell whose such a
 * task was, so once callers hold credentials it must not let one of them reach it: the agent would
 * show any caller the task of another.
 */
export type UnknownTasks = 'agent' | 'not-found';

/**
 * The scope's one rule: whether a caller may reach a task or context whose recorded owner is `owner`
 * (undefined: the registry does not know it).
 */
export function ownerAdmits(owner: string | undefined, ctx: Pick<CallContext, 'principal' | 'ownerVouched'>, unknownTasks: UnknownTasks): boolean {
  return owner === undefined ? unknownTasks === 'agent' || ctx.ownerVouched === true : owner === ctx.principal;
}

/** The same rule for what names a task or context outside the port (iac-code's own routes): true when the caller may reach both. */
export type ReferenceScope = (ref: { taskId?: string; contextId?: string }, principal: string) => Promise<boolean>;

export function referenceScope(registry: Pick<TaskStore, 'ownerOf' | 'contextOwner'>, unknownTasks: UnknownTasks): ReferenceScope {
  return async ({ taskId, contextId }, principal) =>
    (taskId === undefined || ownerAdmits(await registry.ownerOf(taskId), { principal }, unknownTasks)) &&
    (contextId === undefined || ownerAdmits(await registry.contextOwner(contextId), { principal }, unknownTasks));
}

export interface TaskScopeDeps {
  registry: Pick<TaskStore, 'scopeOf'>;
  settling: Settling;
  unknownTasks: UnknownTasks;
}

/**
 * The outermost decorator: a task known under another principal does not exist for this caller
 * (TaskNotFound, without asking the agent: an agent like iac-code scopes tasks to its one credential,
 * the gateway's); nor does one known under another tenant than the call names (tenants.ts: an a2a-js
 * agent answers so, and a gateway that fronts one tenant of its agent must too). So whatever runs below
 * on a task the registry knows runs in the task's own tenant. A task the registry does not know goes to the agent only under `unknownTasks: 'agent'`,
 * or for a call whose owner the gateway vouches for (`ctx.ownerVouched`: a push follow).
 * Every method naming a task first waits for the task's queued writes (`settled`), so
 * the check, and whatever reads the registry below, see every event already relayed.
 */
export function taskScoped(inner: AgentPort, deps: TaskScopeDeps): AgentPort {
  /** One read of the registry decides both: the task's owner and its tenant come together (scopeOf). */
  async function visible(taskId: string, tenant: string, ctx: CallContext): Promise<void> {
    await deps.settling.settled(taskId);
    const scope = await deps.registry.scopeOf(taskId);
    if (!ownerAdmits(scope?.owner, ctx, deps.unknownTasks) || (scope !== undefined && scope.tenant !== tenant)) throw A2AError.taskNotFound(taskId);
  }

  type Tenanted = { tenant?: string };
  const scoped =
    <R extends Tenanted, T>(taskIdOf: (request: R) => string | undefined, call: (request: R, ctx: CallContext) => Promise<T>) =>
    async (request: R, ctx: CallContext): Promise<T> => {
      const taskId = taskIdOf(request);
      if (taskId) await visible(taskId, tenantOf(request), ctx);
      return call(request, ctx);
    };

  /** Checked on the first pull, so a hidden task is the stream's first error. */
  const scopedStream = (
    taskId: string,
    request: Tenanted,
    ctx: CallContext,
    open: () => AsyncIterable<StreamResponse>,
  ): AsyncIterable<StreamResponse> =>
    deferIterable(async () => {
      await visible(taskId, tenantOf(request), ctx);
      return open();
    });

  const byId = <R extends { id: string } & Tenanted, T>(call: (request: R, ctx: CallContext) => Promise<T>) =>
    scoped((request: R) => request.id, call);
  const byTaskId = <R extends { taskId: string } & Tenanted, T>(call: (request: R, ctx: CallContext) => Promise<T>) =>
    scoped((request: R) => request.taskId, call);
  return overlay(inner, {
    sendMessage: scoped(
      (request) => request.message.taskId,
      (request, ctx) => inner.sendMessage(request, ctx),
    ),
    sendStreamingMessage(request, ctx) {
      const { taskId } = request.message;
      return taskId ? scopedStream(taskId, request, ctx, () => inner.sendStreamingMessage(request, ctx)) : inner.sendStreamingMessage(request, ctx);
    },
    getTask: byId((request, ctx) => inner.getTask(request, ctx)),
    cancelTask: byId((request, ctx) => inner.cancelTask(request, ctx)),
    subscribeToTask: (request, ctx) => scopedStream(request.id, request, ctx, () => inner.subscribeToTask(request, ctx)),
    createTaskPushNotificationConfig: byTaskId((request, ctx) => inner.createTaskPushNotificationConfig(request, ctx)),
    getTaskPushNotificationConfig: byTaskId((request, ctx) => inner.getTaskPushNotificationConfig(request, ctx)),
    listTaskPushNotificationConfigs: byTaskId((request, ctx) => inner.listTaskPushNotificationConfigs(request, ctx)),
    deleteTaskPushNotificationConfig: byTaskId((request, ctx) => inner.deleteTaskPushNotificationConfig(request, ctx)),
  });
}

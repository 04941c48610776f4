import { A2AError, type Message, type SendMessageRequest, type StreamResponse, type Task } from '../model/index.js';
import type { AgentPort, CallContext, Settling } from './agent-port.js';
import { scopedFollowedRecordOf, withFollowedRecord } from './followed-record.js';
import { deferIterable } from './iterables.js';
import { overlay } from './overlay.js';
import type { TaskScope, TaskStore } from './task-registry/types.js';
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

/**
 * Every task a message names, each once: the task it continues, then those it refers to (A2A
 * `referenceTaskIds`, which an a2a-js agent loads in full, as the gateway's one credential, and hands to
 * its executor). An empty id names none.
 */
export function tasksNamedBy(message: Pick<Message, 'taskId' | 'referenceTaskIds'>): string[] {
  return [...new Set([message.taskId, ...(message.referenceTaskIds ?? [])])].filter((id): id is string => typeof id === 'string' && id !== '');
}

export interface TaskScopeDeps {
  registry: Pick<TaskStore, 'scopeOf' | 'scopedTask'>;
  settling: Settling;
  unknownTasks: UnknownTasks;
}

/**
 * The outermost decorator: a task known under another principal does not exist for this caller
 * (TaskNotFound, without asking the agent: an agent like iac-code scopes tasks to its one credential,
 * the gateway's); nor does one known under another tenant than the call names (tenants.ts: an a2a-js
 * agent answers so, and a gateway that fronts one tenant of its agent must too). So whatever runs below
 * on a task the registry knows runs in the task's own tenant. A task the registry does not know goes to the agent only under `unknownTasks: 'agent'`,
 * or for a call whose owner the gateway vouches for (`ctx.ownerVouched`: a push follow, a cut facade turn's rest).
 * A message names a task twice over: the one it continues and the ones it refers to (`referenceTaskIds`),
 * and each must pass, or the agent would hand another caller's task to the turn (tasksNamedBy).
 * Every method naming a task first waits for the task's queued writes (`settled`), so
 * the check, and whatever reads the registry below, see every event already relayed.
 */
export function taskScoped(inner: AgentPort, deps: TaskScopeDeps): AgentPort {
  /** One read of the registry decides both: the task's owner and its tenant come together (scopeOf). */
  async function visible(taskId: string, tenant: string, ctx: CallContext): Promise<void> {
    await deps.settling.settled(taskId);
    admitted(taskId, await deps.registry.scopeOf(taskId), tenant, ctx);
  }

  function admitted(taskId: string, scope: TaskScope | undefined, tenant: string, ctx: CallContext): void {
    if (!ownerAdmits(scope?.owner, ctx, deps.unknownTasks) || (scope !== undefined && scope.tenant !== tenant)) throw A2AError.taskNotFound(taskId);
  }

  /**
   * The task a message continues, checked as visible() checks a task, read whole in the same read: admission
   * builds on the caller's task as it then stood (admission.ts messageEntry), handed to it rather than read again.
   * Not read here when the decorator above read it with its scope once the task's queued writes were done
   * (repeated-messages.ts, the caller's own): the check is the same, on that read. A recorded task's owner and
   * tenant never change; the wait stays, for the reads below.
   */
  async function continued(taskId: string, tenant: string, ctx: CallContext): Promise<Task | undefined> {
    await deps.settling.settled(taskId);
    const scoped = scopedFollowedRecordOf(ctx, taskId) ?? (await deps.registry.scopedTask(taskId));
    admitted(taskId, scoped, tenant, ctx);
    return scoped?.owner === ctx.principal ? scoped.task : undefined;
  }

  /**
   * Every task a message names must be visible, the ones it refers to as much as the one it continues:
   * the first hidden one, in the message's order, is the answer, so which is refused does not depend on
   * which read comes back first. The reads go out together (a message may refer to many tasks). The call's
   * context for below: with the task the message continues as read here (CallContext.followedRecord).
   */
  async function messageVisible(request: SendMessageRequest, ctx: CallContext): Promise<CallContext> {
    const taskIds = tasksNamedBy(request.message);
    if (taskIds.length === 0) return ctx;
    const tenant = tenantOf(request);
    let record: Task | undefined;
    const check = (taskId: string): Promise<void> =>
      taskId === request.message.taskId ? continued(taskId, tenant, ctx).then((task) => void (record = task)) : visible(taskId, tenant, ctx);
    const refusals = await Promise.all(
      taskIds.map((taskId) =>
        check(taskId).then(
          () => undefined,
          (error: unknown) => ({ error }),
        ),
      ),
    );
    const refused = refusals.find((refusal) => refusal !== undefined);
    if (refused) throw refused.error;
    return withFollowedRecord(ctx, record);
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
  const scopedStream = (check: () => Promise<void>, open: () => AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> =>
    deferIterable(async () => {
      await check();
      return open();
    });

  const byId = <R extends { id: string } & Tenanted, T>(call: (request: R, ctx: CallContext) => Promise<T>) =>
    scoped((request: R) => request.id, call);
  const byTaskId = <R extends { taskId: string } & Tenanted, T>(call: (request: R, ctx: CallContext) => Promise<T>) =>
    scoped((request: R) => request.taskId, call);
  return overlay(inner, {
    async sendMessage(request, ctx) {
      return inner.sendMessage(request, await messageVisible(request, ctx));
    },
    sendStreamingMessage(request, ctx) {
      // Checked on the first pull, so a hidden task is the stream's first error.
      const open = async () => inner.sendStreamingMessage(request, await messageVisible(request, ctx));
      return tasksNamedBy(request.message).length > 0 ? deferIterable(open) : inner.sendStreamingMessage(request, ctx);
    },
    getTask: byId((request, ctx) => inner.getTask(request, ctx)),
    cancelTask: byId((request, ctx) => inner.cancelTask(request, ctx)),
    subscribeToTask: (request, ctx) =>
      scopedStream(
        () => visible(request.id, tenantOf(request), ctx),
        () => inner.subscribeToTask(request, ctx),
      ),
    createTaskPushNotificationConfig: byTaskId((request, ctx) => inner.createTaskPushNotificationConfig(request, ctx)),
    getTaskPushNotificationConfig: byTaskId((request, ctx) => inner.getTaskPushNotificationConfig(request, ctx)),
    listTaskPushNotificationConfigs: byTaskId((request, ctx) => inner.listTaskPushNotificationConfigs(request, ctx)),
    deleteTaskPushNotificationConfig: byTaskId((request, ctx) => inner.deleteTaskPushNotificationConfig(request, ctx)),
  });
}

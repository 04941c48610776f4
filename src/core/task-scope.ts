import { A2AError } from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import type { TaskRegistry } from './task-registry/types.js';

/** Throws TaskNotFound for a task known under another principal: it does not exist for this caller (iac-code scoping). */
export type AssertVisible = (taskId: string, ctx: CallContext) => Promise<void>;

export function taskScope(registry: TaskRegistry): AssertVisible {
  return async (taskId, ctx) => {
    const owner = await registry.ownerOf(taskId);
    if (owner !== undefined && owner !== ctx.principal) throw A2AError.taskNotFound(taskId);
  };
}

type PushConfigMethods = Pick<
  AgentPort,
  'createTaskPushNotificationConfig' | 'getTaskPushNotificationConfig' | 'listTaskPushNotificationConfigs' | 'deleteTaskPushNotificationConfig'
>;

/**
 * The upstream's push config methods, for the caller's own tasks only. The push service answers
 * these itself in the running gateway (push/service.ts); this is what the core alone forwards.
 */
export function scopedPushConfigs(upstream: AgentPort, assertVisible: AssertVisible): PushConfigMethods {
  const scoped =
    <R extends { taskId: string }, T>(call: (request: R, ctx: CallContext) => Promise<T>) =>
    async (request: R, ctx: CallContext): Promise<T> => {
      await assertVisible(request.taskId, ctx);
      return call(request, ctx);
    };
  return {
    createTaskPushNotificationConfig: scoped((request, ctx) => upstream.createTaskPushNotificationConfig(request, ctx)),
    getTaskPushNotificationConfig: scoped((request, ctx) => upstream.getTaskPushNotificationConfig(request, ctx)),
    listTaskPushNotificationConfigs: scoped((request, ctx) => upstream.listTaskPushNotificationConfigs(request, ctx)),
    deleteTaskPushNotificationConfig: scoped((request, ctx) => upstream.deleteTaskPushNotificationConfig(request, ctx)),
  };
}

import { assertConfigFitsHeaders } from './headers.js';
import type { AgentPort, CallContext } from '../core/agent-port.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import { inScope, tenantOf } from '../core/tenants.js';
import { A2AError, type TaskPushNotificationConfig } from '../model/index.js';
import type { PushConfigStore } from './config-store/types.js';
import { payloadVersionOf, presentConfig, withPayloadVersion } from './payload.js';

export type PushConfigMethods = Pick<
  AgentPort,
  'createTaskPushNotificationConfig' | 'getTaskPushNotificationConfig' | 'listTaskPushNotificationConfigs' | 'deleteTaskPushNotificationConfig'
>;

export interface PushConfigMethodsDeps {
  store: PushConfigStore;
  registry: TaskRegistry;
  /** Waits for queued registry writes of a task (the gateway's `settled`), so a task just streamed is found. */
  settled: (taskId: string) => Promise<void>;
  /** `push-reveal-secrets`. */
  revealSecrets: boolean;
}

/** iac-code answers a task that is not there (unknown, or someone else's) with this. */
const notFound = (taskId: string) => A2AError.taskNotFound(taskId, 'Task not found');

/** The four push-config methods, served by the gateway itself (never forwarded upstream). */
export function createPushConfigMethods(deps: PushConfigMethodsDeps): PushConfigMethods {
  const { store, registry } = deps;
  const present = (config: TaskPushNotificationConfig) => presentConfig(config, deps.revealSecrets);

  /**
   * The task must exist and belong to the caller, in the tenant the request names: another principal's task
   * does not exist for them, nor does one of another tenant (tenants.ts).
   */
  async function assertOwnTask({ taskId, tenant }: { taskId: string; tenant?: string }, ctx: CallContext): Promise<void> {
    await deps.settled(taskId);
    const scope = await registry.scopeOf(taskId);
    if (!scope || !inScope(scope, ctx.principal, tenantOf({ tenant }))) throw notFound(taskId);
  }

  return {
    async createTaskPushNotificationConfig(request, ctx) {
      assertConfigFitsHeaders(request);
      await assertOwnTask(request, ctx);
      const stored = await store.create(ctx.principal, request.taskId, withPayloadVersion(request, payloadVersionOf(ctx)));
      return present(stored.config);
    },

    async getTaskPushNotificationConfig(request, ctx) {
      await assertOwnTask(request, ctx);
      const stored = await store.get(ctx.principal, request.taskId, request.id);
      // The task is the caller's: what is missing is the config (A2A's TaskNotFoundError all the same).
      if (!stored) throw A2AError.pushConfigNotFound(request.taskId, request.id);
      return present(stored.config);
    },

    async listTaskPushNotificationConfigs(request, ctx) {
      await assertOwnTask(request, ctx);
      const page = await store.list(ctx.principal, request.taskId, { pageSize: request.pageSize, pageToken: request.pageToken });
      const configs = page.configs.map((entry) => present(entry.config));
      return page.nextPageToken ? { configs, nextPageToken: page.nextPageToken } : { configs };
    },

    // Deleting a config that is not there is not an error (a2a SDKs), but the task must be the caller's.
    async deleteTaskPushNotificationConfig(request, ctx) {
      await assertOwnTask(request, ctx);
      await store.delete(ctx.principal, request.taskId, request.id);
    },
  };
}

/** `push-notifications: false`: the methods exist on every surface and answer -32003. */
export const unsupportedPushConfigMethods: PushConfigMethods = {
  createTaskPushNotificationConfig: async () => {
    throw A2AError.pushNotSupported();
  },
  getTaskPushNotificationConfig: async () => {
    throw A2AError.pushNotSupported();
  },
  listTaskPushNotificationConfigs: async () => {
    throw A2AError.pushNotSupported();
  },
  deleteTaskPushNotificationConfig: async () => {
    throw A2AError.pushNotSupported();
  },
};

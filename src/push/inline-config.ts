import type { CallContext, Settling } from '../core/agent-port.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import { inScope, tenantOf } from '../core/tenants.js';
import { A2AError, type SendMessageRequest } from '../model/index.js';
import { assertRoomForConfig, prepareConfig, type ConfigStoreOptions, type PushConfigStore } from './config-store/types.js';
import { withoutInlineConfig } from './disabled-service.js';
import { assertConfigFitsHeaders } from './headers.js';
import { payloadVersionOf } from './payload.js';
import type { PushLogger } from './queue/types.js';
import type { InlineConfig } from './watch.js';

/** A placeholder that satisfies the id rule: an inline config is checked before its task exists. */
const PENDING_TASK_ID = 'pending-task';

export interface InlineConfigDeps {
  store: PushConfigStore;
  registry: Pick<TaskRegistry, 'scopeOf'>;
  policy: ConfigStoreOptions;
  logger: PushLogger;
}

/** What push takes off a send: the request forwarded without its config, and the config, to store with the task. */
export type TakeInline = (
  request: SendMessageRequest,
  ctx: CallContext,
  settled: Settling['settled'],
) => Promise<{ forwarded: SendMessageRequest; inline?: InlineConfig }>;

/**
 * Checks an inline config up front (-32602 before anything reaches the upstream) and takes it off the
 * request. A follow-up names its task: a config it has no room for is refused like CreateTaskPushNotificationConfig's.
 */
export function inlineConfigTaker(deps: InlineConfigDeps): TakeInline {
  const { store, registry, policy, logger } = deps;

  async function assertRoomForInline(taskId: string, tenant: string, id: string, ctx: CallContext, settled: Settling['settled']): Promise<void> {
    try {
      await settled(taskId);
      // Another caller's task (or tenant's) is not looked at: the gateway answers for it (not found) without telling how many configs it has.
      const scope = await registry.scopeOf(taskId);
      if (!scope || !inScope(scope, ctx.principal, tenant)) return;
      await assertRoomForConfig(store, ctx.principal, taskId, id, policy.maxConfigsPerTask);
    } catch (error) {
      if (error instanceof A2AError) throw error;
      // The store cannot say (Redis away): the turn goes on, and the store's own check decides when the config is stored.
      logger.warn({ err: error, taskId }, 'A2A inline push notification config could not be checked against the per-task limit');
    }
  }

  return async (request, ctx, settled) => {
    const inline = request.configuration?.taskPushNotificationConfig;
    if (!inline) return { forwarded: request };
    assertConfigFitsHeaders(inline);
    prepareConfig(PENDING_TASK_ID, inline, policy);
    const taskId = request.message.taskId;
    if (taskId) await assertRoomForInline(taskId, tenantOf(request), inline.id ?? taskId, ctx, settled);
    // The task is the one the turn runs on, whatever taskId the caller wrote into the config.
    const { taskId: _ignored, ...fields } = inline;
    return {
      forwarded: withoutInlineConfig(request),
      inline: { owner: ctx.principal, version: payloadVersionOf(ctx), config: fields },
    };
  };
}

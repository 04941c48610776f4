import type { CallContext } from '../../core/agent-port.js';
import { withFields, type CancelTaskRequest, type Task } from '../../model/index.js';
import type { V025Task } from '../../protocol/v025/index.js';
import { taskToV025 } from '../../translate/index.js';
import { withoutGatewayMetadata } from './caller-metadata.js';
import type { V025FacadeDeps } from './deps.js';
import { facadeTaskV025 } from './task-history.js';

/**
 * tasks/cancel's 0.2.5 answer: the canceled task as tasks/get shows it (task-history.ts), read once the cancel
 * settled. The agent's own task is no answer for a Bailian caller, which reads a task's artifacts alone: they hold
 * the reply in the agent's pieces, and the reason ("Canceled by request.") only on the status, where tasks/get's
 * reply artifact holds both. Should that read fail, the cancel still happened and is not told as failed: the task
 * the agent answered it with, as the profile shows it.
 */
export async function canceledTaskV025(
  deps: V025FacadeDeps,
  request: CancelTaskRequest,
  canceled: Task,
  ctx: CallContext,
  clientTaskId?: string,
): Promise<V025Task> {
  const query = withFields({ id: request.id }, request.tenant === undefined ? {} : { tenant: request.tenant });
  return facadeTaskV025(deps, query, ctx, clientTaskId).catch(() => withoutGatewayMetadata(taskToV025(canceled, deps.profile)));
}

import type { CallContext } from '../../../core/agent-port.js';
import { withFields, type CancelTaskRequest, type Task } from '../../../model/index.js';
import type { V025Task } from '../../../protocol/v025/index.js';
import { taskToV025 } from '../../../translate/index.js';
import { withoutGatewayMetadata } from '../caller-metadata.js';
import type { V025FacadeDeps } from '../deps.js';
import type { TurnRouting } from '../send.js';
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

/**
 * A cancel its caller asked for ends the note of the task's turn its user stopped watching (unwatched-turns.ts). The note
 * keeps the turn's rest for the conversation's next message because the agent went on with an answer its user never
 * read; the cancel ends the turn, and its answer shows the turn as it ended. The next message is the caller's own
 * again, sent to the agent. A turn on the conversation that its caller left just now is let go first
 * (continuation.ts previousEnded), so that its note, written as it is let go, is forgotten too. The note of a turn
 * cut since, of another task, stays. Best effort: the cancel happened, whatever the store of notes answers.
 */
export async function forgetCanceledTurn(canceled: Task, principal: string, routing: Pick<TurnRouting, 'turns' | 'languages'>): Promise<void> {
  const { contextId } = canceled;
  if (!contextId) return;
  await routing.turns.previousEnded(principal, contextId).catch(() => undefined);
  await routing.languages.cutTurns.forget(principal, contextId, canceled.id).catch(() => undefined);
}

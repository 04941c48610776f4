import type { CallContext } from '../../../core/agent-port.js';
import { isActiveState, withFields, type Task } from '../../../model/index.js';
import type { V025Task } from '../../../protocol/v025/index.js';
import { timedSignal } from '../../../timed-signal.js';
import type { V025FacadeDeps } from '../deps.js';
import { createPushedReplies } from './pushed-replies.js';
import { keptTaskV025, taskAsKept, withWholeHistory } from './task-history.js';

/**
 * How long a pushed Task waits for the agent's copy of the task before it is made of the registry's: the
 * task's later notifications wait behind it.
 */
export const AGENT_READ_MS = 5_000;

/** Whom a pushed Task is for (the config's owner, the id it named the task by when it chose one), and whether it ends the turn. */
export interface PushedTaskFor {
  owner: string;
  clientTaskId?: string;
  turnEnded: boolean;
}

interface Warns {
  warn(fields: object, message: string): void;
}

/** The task as tasks/get reads it: the agent's, with its whole history; the recorded one when the agent cannot say. */
async function keptTask(deps: V025FacadeDeps, recorded: Task, ctx: CallContext, logger: Warns): Promise<Task> {
  const read = timedSignal(ctx.signal, AGENT_READ_MS);
  try {
    return await taskAsKept(deps, { id: recorded.id }, withFields(ctx, { signal: read.signal }));
  } catch (error) {
    logger.warn({ err: error, taskId: recorded.id }, "A2A 0.2.5 push body: the agent's task could not be read; made of the recorded task");
    return withWholeHistory(recorded, recorded.history ?? []);
  } finally {
    read.clear();
  }
}

/**
 * What a 0.2.5 webhook is pushed about a task: what `tasks/get` answers its caller (task-history.ts), so a Bailian
 * receiver reads the turn's reply in the artifacts as message/send shows it, under the same profile and language,
 * with none of the gateway's metadata. The change that ends the turn is made of the agent's task with its whole
 * history, as tasks/get reads it: the registry's copy (`recorded`) keeps only its last `tasks.history-limit`
 * messages, fewer than one long iac-code turn; an agent that cannot say within AGENT_READ_MS (gone, slow, failing)
 * leaves that copy, from which the same reply is made as far as it holds. The other changes (`push-events: all`, one
 * per streamed piece) are made of the copy, asking the agent nothing, and show a reply that only grows
 * (pushed-replies.ts). Such a change read once the turn ended is pushed the last body again, which push drops as a
 * repeat, or, when none was pushed, the turn's end, which the change that ends the turn is then pushed again.
 */
export function pushedTaskRenderer(deps: V025FacadeDeps, logger: Warns) {
  const replies = createPushedReplies();
  return async (recorded: Task, pushed: PushedTaskFor, signal: AbortSignal): Promise<V025Task> => {
    const ctx: CallContext = { principal: pushed.owner, surface: 'v025', signal };
    const { clientTaskId } = pushed;
    const key = JSON.stringify([recorded.id, pushed.owner, clientTaskId ?? null]);
    const named = async (kept: Task): Promise<V025Task> => {
      const answer = await keptTaskV025(deps, kept, ctx, { clientTaskId });
      // As the dialect names a task its caller chose the id of (dialect.ts withClientTaskId).
      return clientTaskId ? withFields(answer, { id: clientTaskId }) : answer;
    };
    const turnEnd = async () => named(await keptTask(deps, recorded, ctx, logger));
    if (pushed.turnEnded) return replies.ended(key, recorded.status) ?? (await turnEnd());
    if (isActiveState(recorded.status.state)) return replies.growing(key, await named(withWholeHistory(recorded, recorded.history ?? [])));
    const pushedBefore = replies.last(key);
    if (pushedBefore) return pushedBefore;
    const end = await turnEnd();
    replies.keepEnd(key, end, recorded.status);
    return end;
  };
}

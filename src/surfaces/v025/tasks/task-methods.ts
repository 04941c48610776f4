import type { AgentPort, CallContext } from '../../../core/agent-port.js';
import { A2AError } from '../../../model/index.js';
import { isV025TerminalState } from '../../../protocol/v025/index.js';
import { shownState, type ShownStates } from '../reply/index.js';

/**
 * Before tasks/cancel: a task the caller already sees finished (in the states it is shown: `bailian` shows an
 * iac-code end-of-turn as completed, not a turn that waits on a permission prompt) is -32002, not a second
 * success (a2a-js agents answer the canceled task again). A task shown waiting is the agent's to cancel or refuse.
 */
export async function refuseFinished(port: AgentPort, taskId: string, ctx: CallContext, states: ShownStates): Promise<void> {
  const current = await port.getTask({ id: taskId, historyLength: 0 }, ctx);
  if (isV025TerminalState(shownState(current.status.state, current.metadata, states))) throw A2AError.taskNotCancelable(taskId);
}

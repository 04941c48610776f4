import type { AgentPort, CallContext } from '../../core/agent-port.js';
import type { MappingProfile } from '../../mappings/index.js';
import { A2AError } from '../../model/index.js';
import { isV025TerminalState } from '../../protocol/v025/index.js';

/**
 * Before tasks/cancel: a task the caller already sees finished (in the profile's states: `bailian` shows
 * an iac-code end-of-turn as completed) is -32002, not a second success (a2a-js agents answer the
 * canceled task again).
 */
export async function refuseFinished(port: AgentPort, taskId: string, ctx: CallContext, profile: MappingProfile): Promise<void> {
  const current = await port.getTask({ id: taskId, historyLength: 0 }, ctx);
  if (isV025TerminalState(profile.statesToV025[current.status.state])) throw A2AError.taskNotCancelable(taskId);
}

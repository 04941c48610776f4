import type { AgentPort, CallContext } from '../../core/agent-port.js';
import type { MappingProfile } from '../../mappings/index.js';
import { A2AError, retryAfterHeader, toA2AError } from '../../model/index.js';
import { isV025TerminalState } from '../../protocol/v025/index.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';
import { sseResponse } from '../shared/sse.js';
import { v025ErrorBody } from './errors.js';

/**
 * Before tasks/cancel: a task the caller already sees finished (in the profile's states: `bailian` shows
 * an iac-code end-of-turn as completed) is -32002, not a second success (a2a-js agents answer the
 * canceled task again).
 */
export async function refuseFinished(port: AgentPort, taskId: string, ctx: CallContext, profile: MappingProfile): Promise<void> {
  const current = await port.getTask({ id: taskId, historyLength: 0 }, ctx);
  if (isV025TerminalState(profile.statesToV025[current.status.state])) throw A2AError.taskNotCancelable(taskId);
}

async function* once<T>(item: T): AsyncGenerator<T> {
  yield item;
}

/**
 * A streaming method (message/stream, tasks/resubscribe) always answers text/event-stream, because a
 * 0.2.5 streaming client reads the answer as a stream: the a2a-js 0.2.5 client reports a JSON body as
 * "Invalid response Content-Type" and drops its message, where the same error as an SSE frame reaches
 * the caller with its words. A failure before the first event is therefore one frame with the 0.2.5
 * error envelope, then the end: an unnamed event, as a2a-python's server writes one, because a client
 * that listens to default events only would miss an `event: error`. A refusal for now (a turn cap)
 * keeps its `Retry-After`.
 */
export function v025ErrorStream(id: JsonRpcId, error: unknown, profile: MappingProfile): Response {
  const frame = { data: JSON.stringify(v025ErrorBody(id, error, profile)) };
  return sseResponse(once(frame), { keepaliveMs: 0, onError: () => undefined, headers: retryAfterHeader(toA2AError(error)) });
}

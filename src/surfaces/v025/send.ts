import type { Context } from 'hono';
import type { CallContext } from '../../core/agent-port.js';
import type { StreamResponse, Task } from '../../model/index.js';
import type { V025SendMessageResult } from '../../protocol/v025/index.js';
import { sendMessageResultToV025, type TaskResultToV025Options } from '../../translate/index.js';
import type { GatewayEnv } from '../shared/env.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';
import { noteLog } from '../shared/log-fields.js';
import type { Continuations } from './continuation.js';
import type { V025FacadeDeps } from './deps.js';
import { turnInput } from './input.js';
import { v025Stream } from './stream.js';

export interface TurnCall {
  id: JsonRpcId;
  /** The 1.0 SendMessageRequest params from requestToV1 (not yet checked against the 1.0 model). */
  params: unknown;
  ctx: CallContext;
  abort(): void;
  c: Context<GatewayEnv>;
}

function resultOptions(deps: V025FacadeDeps, contextId: string | undefined, previous?: Task): TaskResultToV025Options {
  const bailian = deps.config.bailian;
  return {
    contextId,
    upstreamMetadata: bailian['upstream-metadata'],
    deviceCommands: { metadataKey: bailian['extension-metadata-key'] },
    ...(previous?.artifacts ? { earlierArtifacts: previous.artifacts } : {}),
  };
}

/** message/send: one blocking 1.0 SendMessage through the core, answered as Bailian reads it (a Task). */
export async function sendTurn(call: TurnCall, deps: V025FacadeDeps, turns: Continuations): Promise<V025SendMessageResult> {
  const input = turnInput(call.params, deps.config.bailian);
  const contextId = input.request.message.contextId;
  if (input.rejected) return sendMessageResultToV025({ task: input.rejected }, deps.profile, resultOptions(deps, contextId));
  const turn = await turns.begin(input.request, call.ctx.principal);
  noteLog(call.c, { contextId, taskId: turn.request.message.taskId });
  try {
    const response = await deps.port.sendMessage(turn.request, call.ctx);
    return sendMessageResultToV025(response, deps.profile, resultOptions(deps, contextId, turn.previous));
  } finally {
    turn.end();
  }
}

/** message/stream: the core's SendStreamingMessage as 0.2.5 SSE. */
export async function streamTurn(call: TurnCall, deps: V025FacadeDeps, turns: Continuations): Promise<Response> {
  const input = turnInput(call.params, deps.config.bailian);
  const streamOptions = { id: call.id, deps, c: call.c, signal: call.ctx.signal, abort: call.abort };
  if (input.rejected) return v025Stream(once({ task: input.rejected }), streamOptions);
  const turn = await turns.begin(input.request, call.ctx.principal);
  noteLog(call.c, { contextId: input.request.message.contextId, taskId: turn.request.message.taskId });
  let events: AsyncIterable<StreamResponse>;
  try {
    events = deps.port.sendStreamingMessage(turn.request, call.ctx);
  } catch (error) {
    turn.end();
    throw error;
  }
  return v025Stream(events, { ...streamOptions, onEnd: turn.end });
}

async function* once<T>(item: T): AsyncGenerator<T> {
  yield item;
}

import type { Upstream } from '../core/agent-port.js';
import { A2AError, ErrorCode, refusesFinishedTask, withFields, type StreamResponse } from '../model/index.js';
import { withCause } from '../model/error-cause.js';

/** The codes 0.2.5 and 0.3 agents refuse a message to a finished task with: a2a-js -32600, a2a-python -32602. */
const REFUSAL_CODES: ReadonlySet<number> = new Set([ErrorCode.InvalidRequest, ErrorCode.InvalidParams]);

/**
 * A2A 1.0 answers a message to a finished task with UnsupportedOperation (§3.1.1), as the gateway itself does
 * for a task it recorded finished (core/admission.ts). A task it did not see finish (started by another client
 * of the agent, or before a restart of a gateway without persistence) is refused by the agent in its own
 * version's terms, which reached a 1.0 caller as a malformed request (-32600) or bad params (-32602).
 */
function toldAsUnsupported(error: unknown, taskId: string | undefined): unknown {
  if (!taskId || !refusesFinishedTask(error, taskId, REFUSAL_CODES)) return error;
  const told = new A2AError(ErrorCode.UnsupportedOperation, error.message, { metadata: error.metadata, agentErrorInfo: error.agentErrorInfo });
  return withCause(told, error.cause);
}

async function* eventsTold(events: AsyncIterable<StreamResponse>, taskId: string | undefined): AsyncGenerator<StreamResponse> {
  try {
    yield* events;
  } catch (error) {
    throw toldAsUnsupported(error, taskId);
  }
}

/** A 0.2.5 or 0.3 agent's client whose refusals of a message to a finished task read as A2A 1.0 words them. */
export function withFinishedTaskRefusals<T extends Upstream>(upstream: T): T {
  return withFields(upstream, {
    async sendMessage(req, ctx) {
      try {
        return await upstream.sendMessage(req, ctx);
      } catch (error) {
        throw toldAsUnsupported(error, req.message.taskId);
      }
    },
    sendStreamingMessage: (req, ctx) => eventsTold(upstream.sendStreamingMessage(req, ctx), req.message.taskId),
  } satisfies Partial<Upstream>);
}

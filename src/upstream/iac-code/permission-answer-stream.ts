import type { AgentPort, CallContext } from '../../core/agent-port.js';
import { overlay } from '../../core/overlay.js';
import {
  A2AError,
  eventTaskState,
  isInterruptedState,
  isTerminalState,
  withFields,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
} from '../../model/index.js';
import { isRecord } from '../../model/json.js';
import { timedSignal } from '../../timed-signal.js';

/** iac-code's permission answer (docs/iac-code.md, "Permission prompts"): exactly one JSON data part of kind `permission`. */
export function isPermissionAnswer(request: SendMessageRequest): boolean {
  const [part, ...others] = request.message.parts;
  return others.length === 0 && part?.mediaType === 'application/json' && isRecord(part.data) && part.data.kind === 'permission';
}

export interface PermissionAnswerStreamOptions {
  isIacCode: () => boolean;
  /** `upstream.request-timeout-ms`: the bound of the blocking call the stream stands in for (0: none). */
  requestTimeoutMs: number;
}

/**
 * iac-code as captured never answers a non-streaming SendMessage that answers its permission prompt: it queues it
 * behind the paused request, so the call waits out `request-timeout-ms` and the prompt stays unanswered
 * (docs/iac-code.md). The answer is sent as a stream instead, and the call answered with the task as iac-code then
 * holds it (GetTask), as a blocking send returns: at the turn's next pause or its end, or at its first event for a
 * caller that does not wait (`returnImmediately`), the rest of the stream then read to its end for nobody.
 */
export function answeringPermissionsByStream(inner: AgentPort, options: PermissionAnswerStreamOptions): AgentPort {
  async function answered(request: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
    const bound = timedSignal(ctx.signal, options.requestTimeoutMs);
    const events = inner.sendStreamingMessage(request, withFields(ctx, { signal: bound.signal }))[Symbol.asyncIterator]();
    const waits = request.configuration?.returnImmediately !== true;
    try {
      for (let next = await events.next(); !next.done; next = await events.next()) {
        if (!waits || pauses(next.value)) break;
      }
    } catch (error) {
      bound.clear();
      throw bound.signal.aborted && !ctx.signal.aborted ? A2AError.upstreamTimedOut() : error;
    }
    if (waits) {
      bound.clear();
      await events.return?.();
    } else {
      void drained(events).finally(() => bound.clear());
    }
    const historyLength = request.configuration?.historyLength;
    const task = await inner.getTask(
      withFields(
        { id: request.message.taskId as string },
        withFields(request.tenant ? { tenant: request.tenant } : {}, historyLength === undefined ? {} : { historyLength }),
      ),
      ctx,
    );
    return { task };
  }
  return overlay(inner, {
    sendMessage: (request, ctx) =>
      options.isIacCode() && request.message.taskId !== undefined && isPermissionAnswer(request)
        ? answered(request, ctx)
        : inner.sendMessage(request, ctx),
  });
}

/** An event a blocking send returns at: the turn paused again, or ended. */
function pauses(event: StreamResponse): boolean {
  const state = eventTaskState(event);
  return state !== undefined && (isInterruptedState(state) || isTerminalState(state));
}

async function drained(events: AsyncIterator<StreamResponse>): Promise<void> {
  try {
    for (let next = await events.next(); !next.done; next = await events.next());
  } catch {
    // Nobody reads this turn's rest: the task tells it.
  }
}

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
 * caller that does not wait (`returnImmediately`). That caller's turn is read on to its end through what the gateway
 * adds to a turn's stream (CallContext.readOn, core/read-on.ts): recorded, published, its context's lane held, so
 * the turn ends in the record with its words as a streamed answer's does, not only at iac-code, which may forget it.
 */
export function answeringPermissionsByStream(inner: AgentPort, options: PermissionAnswerStreamOptions): AgentPort {
  async function answered(request: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
    const bound = timedSignal(ctx.signal, options.requestTimeoutMs);
    const events = inner.sendStreamingMessage(request, withFields(ctx, { signal: bound.signal }))[Symbol.asyncIterator]();
    const waits = request.configuration?.returnImmediately !== true;
    // The bound passed, not the caller's call: the gateway hung up a turn still talking (read-on.ts tells them apart).
    const told = (error: unknown): unknown => (bound.signal.aborted && !ctx.signal.aborted ? A2AError.upstreamTimedOut() : error);
    try {
      for (let next = await events.next(); !next.done; next = await events.next()) {
        if (!waits || pauses(next.value)) break;
      }
    } catch (error) {
      bound.clear();
      throw told(error);
    }
    if (waits) {
      bound.clear();
      await events.return?.();
    } else {
      // Handed on before the answer is returned: the decorators then know the turn ends with the rest, not with the answer.
      void readOn(failingAs(events, told), ctx).finally(() => bound.clear());
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

/**
 * The rest of the turn, to its end, through what the gateway adds to a turn's stream (CallContext.readOn); read for
 * nobody where nothing above adds to it. How it ended is not the caller's: what read it has recorded how.
 */
async function readOn(rest: AsyncIterable<StreamResponse>, ctx: CallContext): Promise<void> {
  const read = (ctx.readOn?.(rest) ?? rest)[Symbol.asyncIterator]();
  try {
    while (!(await read.next()).done);
  } catch {
    // Broken off or hung up: the record says how (read-on.ts endedWhenBroken).
  }
}

/** The rest of `events`, its failures as `told` names them. */
function failingAs(events: AsyncIterator<StreamResponse>, told: (error: unknown) => unknown): AsyncIterable<StreamResponse> {
  const iterator: AsyncIterator<StreamResponse> = {
    next: () => events.next().catch((error: unknown) => Promise.reject(told(error))),
    return: async () => (await events.return?.()) ?? { done: true, value: undefined },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

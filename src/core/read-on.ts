import {
  A2AError,
  eventTaskRef,
  GATEWAY_FAILURES,
  isActiveState,
  withFields,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
} from '../model/index.js';
import type { CallContext } from './agent-port.js';
import { deferIterable } from './iterables.js';

/** A decorator's part in the rest of a turn read on past its answer (CallContext.readOn). */
export interface ReadingOn {
  /** The call's context, its `readOn` wrapped with this decorator's part. */
  ctx: CallContext;
  /** Whether the upstream took the rest to read on: the turn then ends with it, not with the answer. */
  handed(): boolean;
  /** The answer is done with here (or failed): the rest is read through this decorator from now on, not before. */
  answered(): void;
}

/**
 * The call's context with `wrap` added to the rest of its turn, should the upstream read one on (CallContext.readOn):
 * inside what the decorators above add, outside what those below add, as a stream of the turn would be. The rest is
 * not read through `wrap` before the decorator is done with the answer, so nothing of the turn's end overtakes it
 * (recorded or published before the answer's running task).
 */
export function readingOn(
  request: SendMessageRequest,
  ctx: CallContext,
  wrap: (rest: AsyncIterable<StreamResponse>) => AsyncIterable<StreamResponse>,
): ReadingOn {
  // Only a turn answered before its end is read on (upstream/v025/immediate.ts): a blocking call, the most frequent
  // of all, pays for no promise, closures or context copy here.
  if (request.configuration?.returnImmediately !== true) return { ctx, handed: () => false, answered: () => {} };
  const outer = ctx.readOn;
  let handed = false;
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  const readOn = (rest: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> => {
    handed = true;
    const mine = deferIterable(async () => {
      await answer;
      return wrap(rest);
    });
    return outer ? outer(mine) : mine;
  };
  return { ctx: withFields(ctx, { readOn }), handed: () => handed, answered };
}

/**
 * The rest of a turn, ending the turn when the agent's stream breaks before its end: nobody reads its error, and
 * the agent may keep the task running for good (a 0.3 agent whose own SDK broke the stream keeps it working), so
 * the turn is failed with the reason, instead of the context kept busy by a turn nothing finishes. Not when the
 * gateway ended the read (it stops, or `upstream.request-timeout-ms` hung up a turn still talking): the agent may
 * run the turn on, and is asked how it went as for any turn nothing read to its end.
 */
export async function* endedWhenBroken(rest: AsyncIterable<StreamResponse>): AsyncGenerator<StreamResponse> {
  let ref: { taskId?: string | undefined; contextId?: string | undefined } = {};
  let finished = false;
  try {
    for await (const event of rest) {
      const seen = eventTaskRef(event);
      if (seen.taskId) ref = seen;
      // The turn ended, or paused for its caller: a break after that is no break of the turn.
      const state = 'statusUpdate' in event ? event.statusUpdate.status.state : 'task' in event ? event.task.status.state : undefined;
      if (state !== undefined) finished = !isActiveState(state);
      yield event;
    }
  } catch (error) {
    const { taskId, contextId } = ref;
    if (finished || !taskId || endedByTheGateway(error)) throw error;
    const reason: Message = {
      messageId: `${taskId}-broken-off`,
      role: 'ROLE_AGENT',
      taskId,
      contextId: contextId ?? '',
      parts: [{ text: error instanceof Error ? error.message : GATEWAY_FAILURES.upstreamUnavailable }],
    };
    yield {
      statusUpdate: {
        taskId,
        contextId: contextId ?? '',
        status: { state: 'TASK_STATE_FAILED', message: reason, timestamp: new Date().toISOString() },
      },
    };
  }
}

const endedByTheGateway = (error: unknown): boolean =>
  error instanceof A2AError && (error.message === GATEWAY_FAILURES.shuttingDown || error.hopFailure === 'timedOut');

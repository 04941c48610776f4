import {
  A2AError,
  ErrorCode,
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

const neverHanded = (): boolean => false;
const nothingToRead = (): void => {};

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
  if (request.configuration?.returnImmediately !== true) return { ctx, handed: neverHanded, answered: nothingToRead };
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
  const turn = createTurnWatch();
  try {
    for await (const event of rest) {
      turn.saw(event);
      yield event;
    }
  } catch (error) {
    const failed = endedByTheGateway(error) ? undefined : turn.failedBy(error);
    if (!failed) throw error;
    yield failed;
  }
}

/** What a stream said of its turn so far, and the failed update of its task a break before the turn's end makes. */
export interface TurnWatch {
  saw(event: StreamResponse): void;
  /** The failed update, or undefined when the turn had ended or paused, or no task was named yet. */
  failedBy(error: unknown): StreamResponse | undefined;
}

/**
 * The id of the message a turn the gateway recorded failed is failed with (failedBy): its reason, the agent's error or
 * the gateway's, which the facade tells its user as it told the turn (surfaces/v025/reply/agent-failure.ts).
 */
export const brokenOffMessageId = (taskId: string): string => `${taskId}-broken-off`;

export function createTurnWatch(): TurnWatch {
  return new WatchedTurn();
}

/** A class, not a literal of closures: every streamed turn the gateway records makes one. */
class WatchedTurn implements TurnWatch {
  #taskId: string | undefined;
  #contextId = '';
  #finished = false;

  saw(event: StreamResponse): void {
    const seen = eventTaskRef(event);
    if (seen.taskId) {
      this.#taskId = seen.taskId;
      this.#contextId = seen.contextId ?? '';
    }
    // The turn ended, or paused for its caller: a break after that is no break of the turn.
    const state = 'statusUpdate' in event ? event.statusUpdate.status.state : 'task' in event ? event.task.status.state : undefined;
    if (state !== undefined) this.#finished = !isActiveState(state);
  }

  failedBy(error: unknown): StreamResponse | undefined {
    const taskId = this.#taskId;
    if (this.#finished || !taskId) return undefined;
    const contextId = this.#contextId;
    const reason: Message = {
      messageId: brokenOffMessageId(taskId),
      role: 'ROLE_AGENT',
      taskId,
      contextId,
      parts: [{ text: error instanceof Error ? error.message : GATEWAY_FAILURES.upstreamUnavailable }],
    };
    return { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_FAILED', message: reason, timestamp: new Date().toISOString() } } };
  }
}

const endedByTheGateway = (error: unknown): boolean =>
  error instanceof A2AError && (error.message === GATEWAY_FAILURES.shuttingDown || error.hopFailure === 'timedOut');

/**
 * Whether a turn's stream its caller reads ended, before the turn's end, with the agent's own error (an a2a-js 1.x
 * agent's SDK refusing an event: "Stream ordering violation"; its -32603 when its task store failed mid-turn), which
 * ends the turn: that agent keeps the task working for good, so every later message of the context was refused as a
 * turn in progress, though the agent takes it. The turn is then recorded failed with the reason (recording.ts); the
 * caller reads the agent's error as it was sent. Not a connection lost, gone quiet or timed out, nor the gateway's
 * refusal of what the agent sent (-32006) or its own failure (-32603 the agent did not send: `reported` tells the
 * agent's, model/errors.ts UpstreamFault), nor a break after the caller left: the agent may run the turn on, and is
 * asked how it went.
 */
export const endsTheTurn = (error: unknown, signal: AbortSignal): boolean =>
  // The signal is read last: a stream that ended without an error (nearly every one) never reads it (own-class-reads.ts).
  error instanceof A2AError &&
  !signal.aborted &&
  error.hopFailure === undefined &&
  (error.upstreamFault === 'reported' ||
    (error.upstreamFault === undefined && error.code !== ErrorCode.InvalidAgentResponse && error.code !== ErrorCode.Internal));

import { eventTaskState, isActiveState, isInterruptedState, toA2AError, type StreamResponse, type TaskState } from '../../../model/index.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import { closeReply, failReply, reduceReply } from './reducer.js';
import { initialReplyState, type ReplyOptions, type ReplyState } from './state.js';

/** The reducer with its state held, for a surface that feeds it one event at a time. */
export interface TurnReply {
  push(event: StreamResponse): V025StreamEvent[];
  close(): V025StreamEvent[];
  fail(reason: string): V025StreamEvent[];
  /** The upstream's stream stopped while the turn still ran: failed, saying so in the turn's language. */
  brokeOff(): V025StreamEvent[];
  readonly started: boolean;
  readonly done: boolean;
  /** The reply artifact's text so far: under `single` (Bailian) the whole reply, a failed turn's reason at its end. */
  readonly shown: string;
}

export function createTurnReply(options: ReplyOptions): TurnReply {
  return new HeldTurnReply(options);
}

/**
 * A class, not an object literal: its accessors sit on the prototype, where a literal's getters would make every
 * open facade stream's reply a dictionary-mode object (470 bytes more; docs/performance.md).
 */
class HeldTurnReply implements TurnReply {
  #state: ReplyState = initialReplyState();

  constructor(private readonly options: ReplyOptions) {}

  push(event: StreamResponse): V025StreamEvent[] {
    return this.#step(reduceReply(this.#state, event, this.options));
  }
  close(): V025StreamEvent[] {
    return this.#step(closeReply(this.#state, this.options));
  }
  fail(reason: string): V025StreamEvent[] {
    return this.#step(failReply(this.#state, reason, this.options));
  }
  brokeOff(): V025StreamEvent[] {
    return this.fail(this.options.words.endedEarly);
  }
  get started(): boolean {
    return this.#state.started;
  }
  get done(): boolean {
    return this.#state.done;
  }
  get shown(): string {
    return this.#state.shown;
  }

  #step(next: { state: ReplyState; events: V025StreamEvent[] }): V025StreamEvent[] {
    this.#state = next.state;
    return next.events;
  }
}

/**
 * The one code path of a facade turn, for message/stream and message/send alike: the upstream's 1.0
 * events through the reply reducer, as 0.2.5 events, each the moment it is made. A failure before
 * the first event is thrown (the caller answers a JSON-RPC error); after it, the turn ends with a
 * failed final status, as it does when the upstream stops mid-turn. Leaving early (the caller's turn
 * is over, or the consumer stops) returns the upstream iterator, which cancels the upstream call.
 * A caller that asked not to wait (`blocking: false`) is answered while the turn still runs: there,
 * ending on an active state is the answer, not a turn that broke off. A blocking caller
 * (`answersAtInterruption`: message/send) is answered once the task waits on it, also where the profile
 * keeps a stream open on auth-required for the agent to go on after a sign-in elsewhere: a blocking call
 * returns at an interrupted state (A2A 1.0), and an a2a-js agent holds its stream open there until the
 * call's bound, which lost the agent's "please sign in" to a timeout.
 */
export async function* replyEvents(
  source: AsyncIterable<StreamResponse>,
  reply: TurnReply,
  { waitsForTurnEnd = true, answersAtInterruption = false }: { waitsForTurnEnd?: boolean; answersAtInterruption?: boolean } = {},
): AsyncGenerator<V025StreamEvent> {
  const upstream = source[Symbol.asyncIterator]();
  let lastState: TaskState | undefined;
  try {
    for (let next = await upstream.next(); !next.done; next = await upstream.next()) {
      lastState = eventTaskState(next.value) ?? lastState;
      yield* reply.push(next.value);
      if (reply.done) return;
      // Only a status update says the agent now waits: a follow-up's stream may open with the task as it
      // stood, waiting on the question this message answers.
      if (answersAtInterruption && 'statusUpdate' in next.value && isInterruptedState(next.value.statusUpdate.status.state)) {
        yield* reply.close();
        return;
      }
    }
    const brokeOff = lastState === undefined || (waitsForTurnEnd && isActiveState(lastState));
    yield* brokeOff ? reply.brokeOff() : reply.close();
  } catch (error) {
    if (!reply.started) throw error;
    yield* reply.fail(toA2AError(error).message);
  } finally {
    await upstream.return?.().catch(() => undefined);
  }
}

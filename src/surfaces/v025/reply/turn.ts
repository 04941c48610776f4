import { eventTaskState, isActiveState, isInterruptedState, toA2AError, type StreamResponse, type TaskState } from '../../../model/index.js';
import { SteppedStage, type Step } from '../../../core/stepped-stages.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import { agentFailureText, reportedByAgent, withAgentFailureToldIn } from './agent-failure.js';
import { closeReply, failReply, reduceReply } from './reducer.js';
import { initialReplyState, type ReplyOptions, type ReplyState } from './state.js';

/** The reducer with its state held, for a surface that feeds it one event at a time. */
export interface TurnReply {
  push(event: StreamResponse): V025StreamEvent[];
  close(): V025StreamEvent[];
  fail(reason: string): V025StreamEvent[];
  /** The turn's stream failed with `error`: the agent's own error told as its failure (agent-failure.ts), else as `fail`. */
  failedBy(error: unknown): V025StreamEvent[];
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

/** Shared, never written: a turn that holds no Task allocates nothing for it. */
const NOTHING_WITHHELD: readonly V025StreamEvent[] = [];

/**
 * A class, not an object literal: its accessors sit on the prototype, where a literal's getters would make every
 * open facade stream's reply a dictionary-mode object (470 bytes more; docs/performance.md).
 */
class HeldTurnReply implements TurnReply {
  #state: ReplyState = initialReplyState();
  /**
   * What a held Task opened the reply with (reducer.ts onTask), handed on only with what tells whether it was the
   * whole answer: the agent's next event, the stream's end, its failure. Until then the stream has not begun, so the
   * first event's bound still runs: an a2a-js 1.x agent that takes an answer up with its waiting task and then says
   * nothing keeps that stream open (INPUT_REQUIRED keeps its event bus alive): its user waited for the upstream's idle
   * bound (none when 0), then the recovery's.
   */
  #withheld: readonly V025StreamEvent[] = NOTHING_WITHHELD;

  constructor(private readonly options: ReplyOptions) {}

  push(event: StreamResponse): V025StreamEvent[] {
    // A busy context's refusal is told only as all the turn says, a new task's or a follow-up's (busy-context.ts).
    const fresh = this.#state.shown === '';
    return this.#step(reduceReply(this.#state, withAgentFailureToldIn(event, this.options.words, fresh), this.options));
  }
  close(): V025StreamEvent[] {
    return this.#step(closeReply(this.#state, this.options));
  }
  fail(reason: string): V025StreamEvent[] {
    return this.#step(failReply(this.#state, reason, this.options));
  }
  failedBy(error: unknown): V025StreamEvent[] {
    const { message } = toA2AError(error);
    return this.fail(reportedByAgent(error) ? agentFailureText(this.options.words, message) : message);
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
    const events = this.#withheld.length === 0 ? next.events : this.#withheld.concat(next.events);
    if (next.state.heldTask !== undefined) {
      this.#withheld = events;
      return [];
    }
    this.#withheld = NOTHING_WITHHELD;
    return events;
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
export function replyEvents(
  source: AsyncIterable<StreamResponse>,
  reply: TurnReply,
  { waitsForTurnEnd = true, answersAtInterruption = false }: { waitsForTurnEnd?: boolean; answersAtInterruption?: boolean } = {},
): AsyncIterableIterator<V025StreamEvent> {
  return new ReplyEvents(source, reply, waitsForTurnEnd, answersAtInterruption);
}

/**
 * replyEvents as a stage (core/stepped-stages.ts), not a generator: on a facade stream it is read through, with the
 * layers below it, in one reaction per event. Its source is returned at every end, as the generator's `finally` did.
 */
class ReplyEvents extends SteppedStage<StreamResponse, V025StreamEvent> {
  #lastState: TaskState | undefined;

  constructor(
    private readonly events: AsyncIterable<StreamResponse>,
    private readonly reply: TurnReply,
    private readonly waitsForTurnEnd: boolean,
    private readonly answersAtInterruption: boolean,
  ) {
    super();
  }

  protected open(): AsyncIterator<StreamResponse> {
    return this.events[Symbol.asyncIterator]();
  }

  protected step(result: IteratorResult<StreamResponse>): Step<V025StreamEvent> {
    try {
      return this.#made(result);
    } catch (error) {
      return this.recover(error);
    }
  }

  #made(result: IteratorResult<StreamResponse>): Step<V025StreamEvent> {
    const reply = this.reply;
    if (result.done) {
      const lastState = this.#lastState;
      const brokeOff = lastState === undefined || (this.waitsForTurnEnd && isActiveState(lastState));
      return { items: brokeOff ? reply.brokeOff() : reply.close(), end: true };
    }
    const event = result.value;
    this.#lastState = eventTaskState(event) ?? this.#lastState;
    const items = reply.push(event);
    if (reply.done) return { items, end: true };
    // Only a status update says the agent now waits: a follow-up's stream may open with the task as it
    // stood, waiting on the question this message answers.
    if (this.answersAtInterruption && 'statusUpdate' in event && isInterruptedState(event.statusUpdate.status.state)) {
      return { items, after: () => this.#closed() };
    }
    return { items };
  }

  /** The reply closed once what the interrupting event made is handed on. */
  #closed(): Step<V025StreamEvent> {
    try {
      return { items: this.reply.close(), end: true };
    } catch (error) {
      return this.recover(error);
    }
  }

  protected override recover(error: unknown): Step<V025StreamEvent> {
    if (!this.reply.started) throw error;
    return { items: this.reply.failedBy(error), end: true };
  }
}

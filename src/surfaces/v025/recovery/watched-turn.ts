import { A2AError, isActiveState, withFields, type Message, type Task } from '../../../model/index.js';
import type { Conversation, CutTurn } from './cut-turns.js';
import type { CutReason, CutTurnNote, CutTurnNotes } from '../notes/cut-turn-notes.js';
import { asksAnew, repeatsShownQuestion, type FacadeWords } from '../reply/index.js';
import { TurnTracker } from './turn-tracker.js';

/** What the turn being watched tells of a cut before its reply began, and whether its message was sent. */
export interface WatchedTurn {
  tracker: TurnTracker;
  /**
   * The turn's message has left for the agent (turn-attempt.ts, told by the upstream client: CallContext.onMessageSent):
   * from now on it may be at work on it. Not before: a message still waiting for a connection, or whose agent refused
   * the connection, reached nothing, and its user is told to try again as for any failure before a turn began.
   */
  sent(): void;
  /**
   * Its user stopped watching it before its end while the agent goes on (unwatched-turns.ts): it is noted at its
   * end as a shutdown's cut is, so that the conversation's next message shows its rest. `read: 'nothing'`: its
   * user read none of it (a message/send hung up), so the rest is the turn whole. Whether its task is known: a
   * new task that named itself in no event yet cannot be noted. `reason`: why, when no connection broke (CutTurnNote.reason).
   */
  unwatched(read?: 'nothing', reason?: CutReason): boolean;
  /**
   * The turn goes on in a fresh context, its reply opened with the words that say the agent started afresh (gone-task.ts):
   * a note of it tells them with its rest, unless the tracker noted them as shown (turn-tracker.ts `startedAfreshTold`).
   */
  startedAfresh(): void;
  /**
   * The reply holds a follow-up's waiting task that asks by the message its user read before this turn, the question
   * they just answered (reply/held-question.ts): the agent has said nothing yet, which a bound tells instead.
   */
  heldRepeatsQuestion(): boolean;
  /**
   * Its message left for the agent as a new task's, and no event came yet: the agent may be at work on a task with
   * no id to note, which only its first event will name (unwatched-turns.ts follows the call until then).
   */
  awaitsFirstEvent(): boolean;
  /**
   * The error that ended the turn before its reply began, as its user reads it: a shutdown's cut of a message
   * already sent says the agent may be at work on it (words.turnCutBeforeReply, or turnCutUnanswered when no
   * note can show its rest), never "try again"; any other error as it is.
   */
  toldAtCut(error: unknown, words: FacadeWords): unknown;
  /**
   * Its caller hung up as its stream ended: at frames the source had already given (never written), or a moment
   * after a frame that pauses the turn for them (stream.ts), which may never have reached them. Noted as
   * `unwatched` is, even after its end, with what the writer acknowledged; not for a turn that showed a cut turn's
   * rest: a client that always closes a stream's connection at once would be shown the same question again and again.
   */
  leftAtEnd(): void;
  end(): void;
}

/**
 * A turn watched for what its user is shown: its tracker, which whatever relays its events notes them in (the
 * upstream's turn and its recovery: turn-attempt.ts; a re-prompt; a cut turn's rest). When the gateway's
 * shutdown ends the turn before its end came, the task is noted as cut with that (cutTurnOf reads it on the
 * conversation's next message): the task its events named, else, once its message was sent, the task it
 * followed up. A turn that showed a cut turn's rest forgets its note when it ends, however it
 * ends (the rest's end, an error), unless its user stopped watching it too (then noted again): the rest
 * is shown to one message, not swallowing every message while the task stays at work. The note goes under the
 * conversation's context as it is when the note is written: a turn moved to a fresh context (gone-task.ts) is noted
 * there, where the conversation's next message looks (moved-contexts.ts), not under the id it was refused in.
 */
export function watchedTurn(
  conversation: Conversation,
  notes: CutTurnNotes,
  shutdown: AbortSignal | undefined,
  turn: WatchedTurnMessage,
): WatchedTurn {
  return new Watched(conversation, notes, shutdown, turn);
}

type WatchedTurnMessage = { sent: Message; previous?: Task | undefined; shows?: CutTurn | undefined };

/** One per facade turn: a class, where a literal of closures over the turn's flags made each of them per turn. */
class Watched implements WatchedTurn {
  readonly tracker: TurnTracker;
  readonly #principal: string;
  #sent = false;
  #ended = false;
  #unwatched = false;
  #readNothing = false;
  #afresh = false;
  #reason: CutReason | undefined;
  /**
   * The turn's bound passed while its reply held a follow-up's waiting task (reply/turn.ts): that task's frame, its
   * question, goes out with the words the bound tells, so its user read it, although the writer may acknowledge
   * those last frames only after the note is written.
   */
  #heldAtBound = false;

  constructor(
    private readonly conversation: Conversation,
    private readonly notes: CutTurnNotes,
    private readonly shutdown: AbortSignal | undefined,
    private readonly turn: WatchedTurnMessage,
  ) {
    this.#principal = conversation.principal;
    const { shows } = turn;
    this.tracker = new TurnTracker(shows ? shows.shown : { sent: turn.sent, ...(turn.previous ? { previous: turn.previous } : {}) });
  }

  sent(): void {
    this.#sent = true;
  }

  unwatched(read?: 'nothing', why?: CutReason): boolean {
    // The first way it was left is the one its user was told of (after the bound passed, its reply says the agent goes on).
    if (!this.#unwatched) this.#reason = why;
    // Its frame, that bound's reply, shows its question only when it is not the one its user just answered (reducer.ts, failReply).
    if (!this.#unwatched && why === 'timed-out') this.#heldAtBound = asksAnew(this.tracker.heldStatus, this.turn.previous);
    this.#unwatched = true;
    this.#readNothing ||= read === 'nothing';
    return this.#cutTask() !== undefined;
  }

  startedAfresh(): void {
    this.#afresh = true;
  }

  heldRepeatsQuestion(): boolean {
    return repeatsShownQuestion(this.tracker.heldStatus, this.turn.previous);
  }

  awaitsFirstEvent(): boolean {
    return this.#sent && !this.turn.shows && this.turn.sent.taskId === undefined && this.tracker.mark === 0;
  }

  toldAtCut(error: unknown, words: FacadeWords): unknown {
    if (!this.#sent || !cutByShutdown(error, this.shutdown)) return error;
    return error.toldAs(this.#cutTask() ? words.turnCutBeforeReply : words.turnCutUnanswered);
  }

  leftAtEnd(): void {
    if (this.turn.shows || this.#unwatched) return;
    this.#unwatched = true;
    if (this.#ended) this.#noteCut();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#noteCut();
  }

  /**
   * The task to note as cut, when the shutdown has cut the turn or its user stopped watching it: unless its user
   * was shown its end (what a stream wrote, not what it relayed after they left: a question they never read stays open).
   */
  #cutTask(): string | undefined {
    if (!(this.shutdown?.aborted || this.#unwatched) || !this.conversation.contextId) return undefined;
    const { state, heldStatus } = this.tracker.shown();
    // A follow-up's stream that opened with its task still waiting (an a2a-js 1.x agent taking up the answer) goes on.
    if (state !== undefined && !isActiveState(state) && heldStatus === undefined) return undefined;
    const { shows, sent } = this.turn;
    return this.tracker.taskId ?? shows?.current.id ?? (this.#sent ? sent.taskId : undefined);
  }

  #noteCut(): void {
    const { contextId } = this.conversation;
    if (!contextId) return;
    const taskId = this.#cutTask();
    const { tracker } = this;
    if (!taskId) {
      if (this.turn.shows) void this.notes.forget(this.#principal, contextId, this.turn.shows.current.id);
      return;
    }
    // Made only for a note (a turn not cut, the most frequent, copies nothing). The note is written as the cut
    // stream ends; the store keeps it before it closes (conversation-languages.ts).
    const soFar = this.#readNothing ? tracker.unread() : withFields(tracker.shown().soFar(), this.#heldAtBound ? { heldShown: true } : {});
    // Its rest tells its user the agent started afresh unless a frame that told them so was written to them.
    const toldAfresh = !this.#readNothing && tracker.shown().startedAfreshTold;
    const shown = this.#afresh && !toldAfresh ? withFields(soFar, { startedAfresh: true }) : soFar;
    const reason = this.#reason;
    void this.notes.note(this.#principal, contextId, withFields({ taskId, shown }, reason ? { reason } : {}) satisfies CutTurnNote);
  }
}

/**
 * The gateway's shutdown ended the call: its own reason, or a hop it failed, already told in the turn's
 * words (send.ts toldBeforeFirstEvent), while it shut down. An agent that refused the message's connection
 * fails it too, but never marks it sent: only a hop failed after the message left gets here told as a cut.
 */
const cutByShutdown = (error: unknown, shutdown: AbortSignal | undefined): error is A2AError =>
  shutdown?.aborted === true && error instanceof A2AError && (error === shutdown.reason || error.hopFailure === 'unavailable');

import { randomUUID } from 'node:crypto';
import type { CallContext } from '../../core/agent-port.js';
import { A2AError, ErrorCode, isActiveState, withFields, type Message, type StreamResponse, type Task } from '../../model/index.js';
import { joinText } from '../../translate/index.js';
import { pendingPermission } from '../../upstream/iac-code/permissions.js';
import { pipelineEnvelopes } from '../../upstream/iac-code/pipeline-events.js';
import type { V025FacadeDeps } from './deps.js';
import { asksAnew, asksToGoOn, repeatsShownQuestion, type FacadeWords, type ReplyOptions } from './reply/index.js';
import { repeatsNotedMessage } from './repeated-message.js';
import { replyOptions } from './reply-options.js';
import { withoutRestatements } from './rest-restatements.js';
import { withReplayedGap } from './turn-pipeline-replay.js';
import { followedRest, withoutHold } from './turn-recovery.js';
import { restCursor, restEvents, type TurnSoFar } from './turn-rest.js';
import { noted, TurnTracker } from './turn-tracker.js';
import type { CutReason, CutTurnNote, CutTurnNotes } from './cut-turn-notes.js';

/**
 * A Bailian turn the gateway's shutdown cut (a rollout) goes on at the agent, and its
 * user was told that their next message in the conversation shows what it said after the cut
 * (words.turnCutByShutdown). That next message, on any replica, is answered with the cut turn's rest instead
 * of being sent: followed live while the agent still works on it (a message into a running turn would be
 * refused, or would damage it at iac-code), else read from the task (its answer, the question it asked, why it
 * failed). What the user was shown is kept in the note at the cut, whatever the registry records of the task
 * since (a push follower, a GetTask). The message itself is not taken as an answer to words its writer never
 * read, and the reply says it was not sent; or, when it is the cut turn's message again (Bailian's retry, its user
 * sending it again), that the rest is its answer. One message shows the rest: its turn's end forgets the note.
 */
export interface CutTurn {
  /** What the cut turn's user was shown. */
  shown: TurnSoFar;
  /** The task as the agent has it now. */
  current: Task;
  /** The message that reads the rest asks what the cut turn's message asked: the rest is its answer (repeated-message.ts). */
  repeated: boolean;
  /** The message that reads the rest only asks to go on ("continue", as the words that told of the cut suggest). */
  goesOn?: boolean;
  /** Why its user stopped reading it, when no connection broke (CutTurnNote.reason). */
  reason?: CutReason;
}

type Conversation = { principal: string; contextId: string | undefined };

/**
 * The call that reads a note's task: the note is the caller's own (kept under its principal, written by its turn
 * through the task scope), so the gateway vouches that the task is theirs, as for a push follow. A registry that
 * forgot the task (a restart with `store: memory`, whose note outlives it in `persistence-dir`) then still lets
 * its rest be read; a task recorded under another principal stays out of reach (task-scope.ts ownerAdmits).
 */
const vouched = (ctx: CallContext): CallContext => withFields(ctx, { ownerVouched: true });

/** The task is gone at the agent: its rest can never be read. Any other failure may pass (the agent out of reach). */
const unknownToAgent = (error: unknown): boolean => error instanceof A2AError && error.code === ErrorCode.TaskNotFound;

/** The conversation's cut turn whose rest its user has not read, if any; `message`: the message that would read it. */
export async function cutTurnOf(
  conversation: Conversation,
  notes: CutTurnNotes,
  deps: V025FacadeDeps,
  ctx: CallContext,
  message: Pick<Message, 'parts'>,
): Promise<CutTurn | undefined> {
  const { principal, contextId } = conversation;
  if (!contextId) return undefined;
  const note = await notes.cut(principal, contextId);
  if (!note) return undefined;
  try {
    const current = await deps.port.getTask({ id: note.taskId }, vouched(ctx));
    const cut = withFields(
      { shown: note.shown, current, repeated: repeatsNotedMessage(note.shown, message), goesOn: onlyAsksToGoOn(message) },
      note.reason ? { reason: note.reason } : {},
    );
    if (!(await nothingLeftOf(cut))) return cut;
    // Its user read all the turn said: the message is their next one, for the agent.
    await notes.forget(principal, contextId, note.taskId);
    return undefined;
  } catch (error) {
    if (unknownToAgent(error)) await notes.forget(principal, contextId, note.taskId);
    return undefined;
  }
}

/**
 * The cut turn ended waiting for its user's next message, and its user read every word of it: they left after its
 * last word and before its end came (iac-code's restatement of its last words, then its INPUT_REQUIRED), so its rest
 * would show nothing but the words that open it. Not a turn its user read none of (a turn that said nothing is told
 * what it did), a question to answer, a pipeline turn (its words before its last update are in iac-code's journal
 * alone), nor the cut turn's message again (Bailian's retry: sent on, it would run the turn twice).
 */
async function nothingLeftOf(cut: CutTurn): Promise<boolean> {
  const { current, shown } = cut;
  if (cut.repeated || readNoneOf(shown) || shown.pipelineSequence !== undefined || current.status.state !== 'TASK_STATE_INPUT_REQUIRED') return false;
  const { events, ended } = restEvents(current, restCursor(current, shown), shown, shown.previous?.artifacts);
  if (!ended) return false;
  for await (const event of withoutRestatements(events, shown)) if (!saysNothing(event)) return false;
  return true;
}

/** A status update without words, a question or pipeline envelopes: one that shows its user nothing. */
function saysNothing(event: StreamResponse): boolean {
  if (!('statusUpdate' in event)) return false;
  const { status, metadata } = event.statusUpdate;
  return joinText(status.message?.parts).trim() === '' && !pendingPermission(metadata) && pipelineEnvelopes(metadata) === undefined;
}

/**
 * The reply options of the message that shows a cut turn's rest: the cut turn's, its task named as its caller knows
 * it, its reply artifact the cut turn's (made from the cut turn's message, not this one, which was never sent): the
 * rest is more of that reply, and tasks/get shows the turn's whole reply under that id.
 */
export function cutTurnReply(cut: CutTurn, words: FacadeWords, deps: V025FacadeDeps, clientTaskId: string | undefined): ReplyOptions {
  const before = cut.shown.previous;
  const facts = { words, sentMessageId: cut.shown.sent.messageId };
  return replyOptions(deps, withFields(facts, withFields(before ? { previous: before } : {}, clientTaskId ? { taskId: clientTaskId } : {})));
}

/**
 * Its user read none of the cut turn: no agent message, no file, no pipeline envelope, nor the question of the waiting
 * task a follow-up's stream opened with (shown at the turn's bound: `heldShown`) (a message/send hung up, whose one
 * answer never came; a stream cut before the agent's first word). Told from what the note says was shown, not from a
 * mark of its own, so that every turn that shows part of it later (on any replica, of any release) counts.
 */
const readNoneOf = (shown: TurnSoFar): boolean =>
  shown.passed.length === 0 && (shown.passedFiles ?? []).length === 0 && shown.pipelineSequence === undefined && shown.heldShown !== true;

/**
 * The words that open a cut turn's rest, as the note tells what its user read: the rest, or, when they read none of
 * it, the turn's reply whole (or, when its task still asks by the message they read before it, that the agent still
 * asks that question); and whether the message that reads it was passed on. Why the turn was cut, as the note
 * tells it: the gateway's own bound (its user was told the agent took longer than the reply could wait), not a
 * broken connection, is not called one.
 */
export function cutTurnLead(cut: CutTurn, words: FacadeWords): string {
  const [rest, restOfSame, whole, wholeOfSame] =
    cut.reason === 'timed-out'
      ? [words.timedOutTurnRest, words.timedOutTurnRestOfSameMessage, words.timedOutTurnWhole, words.timedOutTurnWholeOfSameMessage]
      : [words.cutTurnRest, words.cutTurnRestOfSameMessage, words.cutTurnWhole, words.cutTurnWholeOfSameMessage];
  if (cut.repeated) return readNoneOf(cut.shown) ? (asksStill(cut) ? words.stillAsksOfSameMessage : wholeOfSame) : restOfSame;
  const lead = readNoneOf(cut.shown) ? (asksStill(cut) ? words.stillAsks : whole) : rest;
  return cut.goesOn ? lead : words.notPassedOn(lead);
}

/**
 * The task still asks by the message its user read before the cut turn (an answer the agent took up with its waiting
 * task and never went on with): no reply that waited or broke, and what follows is no reply of the agent's.
 */
const asksStill = (cut: CutTurn): boolean => repeatsShownQuestion(cut.current.status, cut.shown.previous);

/** A message of text alone that asks only to go on: not one to pass to the agent, nor to be told it was not. */
const onlyAsksToGoOn = (message: Pick<Message, 'parts'>): boolean =>
  message.parts.length > 0 && message.parts.every((part) => part.text !== undefined) && asksToGoOn(joinText(message.parts));

/**
 * The cut turn's rest as the events a streaming agent would have sent, opened with the words that say what it
 * is. Its events are noted in `tracker`, the tracker of the turn that shows them (watchedTurn), which starts
 * from what the cut turn showed.
 */
export async function* cutTurnRest(
  cut: CutTurn,
  words: FacadeWords,
  ctx: CallContext,
  deps: V025FacadeDeps,
  tracker: TurnTracker,
): AsyncGenerator<StreamResponse> {
  const { current, shown } = cut;
  const contextId = current.contextId ?? shown.previous?.contextId ?? current.id;
  // Its user read none of a turn that went on in a fresh context: nor the words that opened it (started-afresh.ts).
  const afresh = shown.startedAfresh && readNoneOf(shown) ? `${words.startedAfresh}\n\n` : '';
  const said: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: `${cutTurnLead(cut, words)}\n\n${afresh}` }] };
  // The opening is the facade's, not the turn's: a shutdown that cuts this turn too notes what came after it.
  yield { statusUpdate: { taskId: current.id, contextId, status: { state: 'TASK_STATE_WORKING', message: said } } };
  if (isActiveState(current.status.state)) {
    // A reply of its own, whose rules see none of what its user read before the cut: what says that again is left out here.
    yield* withoutRestatements(followedRest(current.id, tracker, vouched(ctx), deps), shown);
    return;
  }
  // Read once: a task that still waits as the cut turn's stream opened with it (an a2a-js 1.x agent took the answer up
  // and said nothing more within the turn's bound) asked all it asks, rather than a turn that goes on and broke off.
  const rest = restEvents(current, restCursor(current, shown), withoutHold(shown), shown.previous?.artifacts).events;
  // A pipeline turn's words before its last update are in no task: read from iac-code's journal after those its user
  // was shown, as a broken stream's recovery reads them (one path for the rest followed live and the rest read here).
  yield* noted(withoutRestatements(await withReplayedGap(rest, shown, deps.pipelineState, ctx.signal), shown), tracker);
}

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
  /** The turn goes on in a fresh context, its reply opened with the words that say the agent started afresh (gone-task.ts). */
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
  turn: { sent: Message; previous?: Task | undefined; shows?: CutTurn | undefined },
): WatchedTurn {
  const { principal } = conversation;
  const { shows } = turn;
  const tracker = new TurnTracker(shows ? shows.shown : { sent: turn.sent, ...(turn.previous ? { previous: turn.previous } : {}) });
  let sent = false;
  let ended = false;
  let unwatched = false;
  let readNothing = false;
  let afresh = false;
  let reason: CutReason | undefined;
  /**
   * The turn's bound passed while its reply held a follow-up's waiting task (reply/turn.ts): that task's frame, its
   * question, goes out with the words the bound tells, so its user read it, although the writer may acknowledge
   * those last frames only after the note is written.
   */
  let heldAtBound = false;
  /**
   * The task to note as cut, when the shutdown has cut the turn or its user stopped watching it: unless its user
   * was shown its end (what a stream wrote, not what it relayed after they left: a question they never read stays open).
   */
  const cutTask = (): string | undefined => {
    if (!(shutdown?.aborted || unwatched) || !conversation.contextId) return undefined;
    const { state, heldStatus } = tracker.shown();
    // A follow-up's stream that opened with its task still waiting (an a2a-js 1.x agent taking up the answer) goes on.
    if (state !== undefined && !isActiveState(state) && heldStatus === undefined) return undefined;
    return tracker.taskId ?? shows?.current.id ?? (sent ? turn.sent.taskId : undefined);
  };
  const noteCut = (): void => {
    const { contextId } = conversation;
    if (!contextId) return;
    const taskId = cutTask();
    if (!taskId) {
      if (shows) void notes.forget(principal, contextId, shows.current.id);
      return;
    }
    // Made only for a note (a turn not cut, the most frequent, copies nothing). The note is written as the cut
    // stream ends; the store keeps it before it closes (conversation-languages.ts).
    const soFar = readNothing ? tracker.unread() : withFields(tracker.shown().soFar(), heldAtBound ? { heldShown: true } : {});
    const shown = afresh ? withFields(soFar, { startedAfresh: true }) : soFar;
    void notes.note(principal, contextId, withFields({ taskId, shown }, reason ? { reason } : {}) satisfies CutTurnNote);
  };
  return {
    tracker,
    sent: () => void (sent = true),
    unwatched(read, why) {
      // The first way it was left is the one its user was told of (after the bound passed, its reply says the agent goes on).
      if (!unwatched) reason = why;
      // Its frame, that bound's reply, shows its question only when it is not the one its user just answered (reducer.ts, failReply).
      if (!unwatched && why === 'timed-out') heldAtBound = asksAnew(tracker.heldStatus, turn.previous);
      unwatched = true;
      readNothing ||= read === 'nothing';
      return cutTask() !== undefined;
    },
    startedAfresh: () => void (afresh = true),
    heldRepeatsQuestion: () => repeatsShownQuestion(tracker.heldStatus, turn.previous),
    awaitsFirstEvent: () => sent && !shows && turn.sent.taskId === undefined && tracker.mark === 0,
    toldAtCut(error, words) {
      if (!sent || !cutByShutdown(error, shutdown)) return error;
      return error.toldAs(cutTask() ? words.turnCutBeforeReply : words.turnCutUnanswered);
    },
    leftAtEnd() {
      if (shows || unwatched) return;
      unwatched = true;
      if (ended) noteCut();
    },
    end() {
      if (ended) return;
      ended = true;
      noteCut();
    },
  };
}

/**
 * The gateway's shutdown ended the call: its own reason, or a hop it failed, already told in the turn's
 * words (send.ts toldBeforeFirstEvent), while it shut down. An agent that refused the message's connection
 * fails it too, but never marks it sent: only a hop failed after the message left gets here told as a cut.
 */
const cutByShutdown = (error: unknown, shutdown: AbortSignal | undefined): error is A2AError =>
  shutdown?.aborted === true && error instanceof A2AError && (error === shutdown.reason || error.hopFailure === 'unavailable');

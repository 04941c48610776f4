import { randomUUID } from 'node:crypto';
import type { CallContext } from '../../../core/agent-port.js';
import { A2AError, ErrorCode, isActiveState, withFields, type Message, type StreamResponse, type Task } from '../../../model/index.js';
import { joinText } from '../../../translate/index.js';
import { pendingPermission } from '../../../upstream/iac-code/permissions.js';
import { pipelineEnvelopes } from '../../../upstream/iac-code/pipeline-events.js';
import type { V025FacadeDeps } from '../deps.js';
import { asksToGoOn, repeatsShownQuestion, type FacadeWords, type ReplyOptions } from '../reply/index.js';
import { repeatsNotedMessage } from '../turn/repeated-message.js';
import { replyOptions } from '../reply-options.js';
import { withoutRestatements } from './rest-restatements.js';
import { withReplayedGap } from './turn-pipeline-replay.js';
import { followedRest, withoutHold } from './turn-recovery.js';
import { restCursor, restEvents, type TurnSoFar } from './turn-rest.js';
import { noted, type TurnTracker } from './turn-tracker.js';
import type { CutReason, CutTurnNotes } from '../notes/cut-turn-notes.js';

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

export type Conversation = { principal: string; contextId: string | undefined };

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

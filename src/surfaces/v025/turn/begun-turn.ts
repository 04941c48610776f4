import { randomUUID } from 'node:crypto';
import { contextBusyError } from '../../../core/context-lanes.js';
import { withFields, type SendMessageRequest, type StreamResponse } from '../../../model/index.js';
import { noteLogFields } from '../../shared/log-fields.js';
import { refusesContexts, type GoneTaskOptions } from './gone-task.js';
import { inMovedContext } from '../notes/moved-contexts.js';
import { freshContextTurn } from './fresh-context-turn.js';
import type { V025FacadeDeps } from '../deps.js';
import type { LaterImages } from '../input.js';
import { answerPermission, waitsOnDecision } from './permission-answers.js';
import { answerPipelineChoice } from './pipeline-answers.js';
import { replyOptions, turnLanguageOf, wordsIn } from '../reply-options.js';
import { cutTurnOf, cutTurnReply, cutTurnRest } from '../recovery/cut-turns.js';
import { watchedTurn } from '../recovery/watched-turn.js';
import { latestTurnMessageOf } from './latest-turn-message.js';
import { noteFilesBeforeTurn } from './files-before-turn.js';
import { unwatchedTurn } from '../recovery/unwatched-turns.js';
import { endedTurnRepeated, noteSentTurnMessage } from './repeated-turn.js';
import { turnNoteStores } from '../notes/turn-notes.js';
import type { TurnCall, TurnRouting } from '../send.js';

/**
 * The turn's task as the caller addresses it, and the turn begun on its context. Its URL images go with
 * it only while it is the caller's message: a permission answer is sent as iac-code's data part alone,
 * and a re-prompt sends nothing (as a base64 image, already a part, is dropped then).
 */
export async function beginTurn(
  input: { request: SendMessageRequest; images?: LaterImages | undefined },
  call: TurnCall,
  deps: V025FacadeDeps,
  routing: TurnRouting,
) {
  const { principal } = call.ctx;
  // A conversation the facade moved to a fresh context (iac-code refuses its own for good) goes on there.
  const request = await inMovedContext(input.request, principal, routing.languages.movedContexts);
  const task = await routing.ids.forTurn(request, principal);
  const own = inItsOwnContext(task.request);
  const opened = own !== task.request;
  const conversation = { principal, contextId: own.message.contextId };
  // Its notes, read together (turn-notes.ts); none for a conversation this message opens.
  const notes = turnNoteStores(routing.languages, conversation, opened);
  // The conversation as the caller's message names it: one the message opens (none named) has no turn before it.
  // A turn a shutdown cut is answered first, before the agent is asked anything of the conversation (cut-turns.ts).
  // A turn whose caller just left is let go first (continuation.ts).
  const named = { principal, contextId: task.request.message.contextId };
  // One still running when that wait gave up is refused as a turn in progress, not raced for its lane.
  const previous = await routing.turns.previousEnded(principal, named.contextId);
  if (previous === 'held' && named.contextId !== undefined) throw contextBusyError(named.contextId);
  const cut = await cutTurnOf(named, notes.cutTurns, deps, call.ctx, task.request.message);
  // The latest turn's message again once that turn ended (a retry whose answer was lost): its reply, not a second run.
  const sentTurns = routing.languages.sentTurnMessages;
  const repeated = cut ? undefined : await endedTurnRepeated(named, notes.sentTurnMessages, deps, call.ctx, task.request.message);
  if (repeated) return { repeated, clientTaskId: task.clientTaskId ?? (await routing.ids.clientIdOf(repeated.id, principal)) };
  // A task the registry last saw running may have finished its turn unwatched: the agent is asked.
  const lookup = (id: string) => deps.port.getTask({ id }, call.ctx);
  // One it opens has no task before it: the registry is not asked for one (continuation.ts opens).
  const begun = opened ? routing.turns.opens(own, principal) : await routing.turns.begin(own, principal, lookup);
  try {
    // A decision the caller never read of (its turn broke off, the agent went on and asked for permission or a
    // choice) is shown first, the turn as the agent left it: the message is not taken as a decision it never saw.
    const unread = begun.unseen && begun.previous && waitsOnDecision(begun.previous) ? begun.previous : undefined;
    const chosen = unread ? begun.request : answerPipelineChoice(begun.request, begun.previous);
    // The caller's own words, in the turn's context; a reply that names one of the agent's options ("方案B") is
    // the agent's words, which say nothing of the language the caller writes in.
    const own = chosen === begun.request ? begun.request.message : undefined;
    // The caller's id of the task the turn continues, read while its language is read and noted (a round trip each),
    // not after; awaited below, where a failure is thrown.
    const continued = begun.request.message.taskId;
    const continuedClientId = task.clientTaskId === undefined && continued !== undefined ? routing.ids.clientIdOf(continued, principal) : undefined;
    continuedClientId?.catch(() => undefined);
    const language = await turnLanguageOf(deps, { message: own, previous: begun.previous, principal }, notes.languages);
    // Set in place, as portCall sets the call's own fields: the upstream is asked to write in it too.
    if (language) call.ctx.language = language;
    const words = wordsIn(language);
    const answered = unread ? { request: begun.request, reprompt: unread } : answerPermission(chosen, begun.previous, words);
    const seen = { sent: answered.request.message, previous: begun.previous, shows: cut };
    const watch = watchedTurn(conversation, routing.languages.cutTurns, deps.shutdown, seen);
    const end = (): void => (begun.end(), watch.end());
    const turn = withFields(begun, { request: answered.request, end });
    const upstreamTaskId = turn.request.message.taskId;
    const clientIdOf = (id: string) => (id === continued && continuedClientId ? continuedClientId : routing.ids.clientIdOf(id, principal));
    const clientTaskId = task.clientTaskId ?? (upstreamTaskId ? await clientIdOf(upstreamTaskId) : undefined);
    noteLogFields(call.logFields, { contextId: begun.request.message.contextId, taskId: clientTaskId ?? upstreamTaskId });
    const images = !answered.reprompt && answered.request === begun.request ? input.images : undefined;
    // What the caller was shown of the task before: its artifacts are not shown again.
    const shownBefore = begun.unseen?.recorded ?? begun.previous;
    // A re-prompt shows the paused turn again, its reply under the id that turn gave it (as tasks/get shows it), not one of this message's own, which is not sent.
    const sentMessageId = (answered.reprompt && latestTurnMessageOf(begun.previous)?.messageId) || turn.request.message.messageId;
    // So that tasks/get and tasks/resubscribe leave the task's earlier files out of this turn's reply, as this reply does.
    if (!answered.reprompt && !cut && upstreamTaskId !== undefined)
      await noteFilesBeforeTurn(routing.languages.filesBeforeTurn, { principal, taskId: upstreamTaskId, sentMessageId }, shownBefore);
    const reply = replyOptions(deps, { words, sentMessageId, previous: shownBefore, taskId: clientTaskId });
    // The caller named no task: the facade aimed its words at the conversation's waiting one, or opens a new one
    // (at iac-code). If the agent no longer has what they went to (the task, or a context iac-code takes no turn in
    // again), the caller's own words go to a new task (gone-task.ts), also when they answered its question; a
    // conversation moved to a fresh context goes on there, whichever of its ids the caller sends next.
    const picked = task.request.message.taskId === undefined && (upstreamTaskId !== undefined || refusesContexts(deps.cards.current()?.card));
    const asked = answered.request === begun.request ? undefined : begun.request;
    // There the agent starts afresh, and its user is told so once (fresh-context-turn.ts).
    const movedFrom = [input.request.message.contextId, conversation.contextId];
    const fresh = picked ? freshContextTurn(conversation, watch, routing.languages, { movedFrom, words }) : undefined;
    const retried: GoneTaskOptions | undefined = fresh && { asked, ...fresh };
    // The turn's one tracker, noted by whatever relays its events (turn-attempt.ts, the re-prompt, the cut turn's rest).
    const { tracker } = watch;
    const onSent = (): void => (watch.sent(), noteSentTurnMessage(sentTurns, conversation, task.request.message));
    const unwatched = unwatchedTurn(watch, words);
    // Past its bound while the agent works on (a task read with GetTask: polled-turn.ts), it is noted as left running.
    const attempt = { tracker, previous: begun.previous, onSent, pastBound: unwatched.timedOut };
    const toldAtCut = (error: unknown): unknown => watch.toldAtCut(error, words);
    const { reprompt } = answered;
    const shown = {
      task,
      turn,
      reply,
      reprompt,
      images,
      retried,
      attempt,
      toldAtCut,
      unwatched,
      cutRest: undefined as AsyncIterable<StreamResponse> | undefined,
    };
    if (!cut) return shown;
    const cutTaskId = await clientIdOf(cut.current.id);
    shown.reply = cutTurnReply(cut, words, deps, cutTaskId);
    shown.cutRest = cutTurnRest(cut, words, call.ctx, deps, tracker);
    return shown;
  } catch (error) {
    // The alias store failed: the context must not stay marked as running a turn.
    begun.end();
    throw error;
  }
}

/**
 * A message that opens a conversation (no context, no task of the agent's) gets its context id here rather than from
 * the agent, so that everything the facade keeps of the conversation (its language) is keyed from its
 * first turn; iac-code takes a caller's id, and the caller reads it in the answer.
 */
function inItsOwnContext(request: SendMessageRequest): SendMessageRequest {
  const { message } = request;
  if (message.contextId || message.taskId) return request;
  return withFields(request, { message: withFields(message, { contextId: randomUUID() }) });
}

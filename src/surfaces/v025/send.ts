import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { CallContext } from '../../core/agent-port.js';
import { refuseTurnsWhileOutOfReach } from '../../core/admission.js';
import { contextBusyError } from '../../core/context-lanes.js';
import { belowCap } from '../../core/turn-limits.js';
import { withFields, A2AError, type SendMessageRequest, type StreamResponse } from '../../model/index.js';
import type { V025SendMessageResult } from '../../protocol/v025/index.js';
import type { RequestLogFields } from '../shared/env.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';
import { noteLogFields } from '../shared/log-fields.js';
import { offAborted, onceAborted } from '../../own-class-reads.js';
import type { ClientTaskIds } from './client-task-ids.js';
import type { Continuations } from './continuation.js';
import { withoutGatewayMetadata } from './caller-metadata.js';
import { inNewTaskIfGone, refusesContexts, type AttemptRun, type GoneTaskOptions } from './gone-task.js';
import { inMovedContext } from './moved-contexts.js';
import { freshContextTurn } from './fresh-context-turn.js';
import type { V025FacadeDeps } from './deps.js';
import { cardAccepts, turnInput, type LaterImages, type TurnInput } from './input.js';
import { afterImages, withLaterImages } from './later-images.js';
import { answerPermission, waitsOnDecision } from './permission-answers.js';
import { answerPipelineChoice } from './pipeline-answers.js';
import { createReplyFold, createTurnReply, replyEvents } from './reply/index.js';
import { replyOptions, turnLanguageOf, wordsIn } from './reply-options.js';
import type { ConversationLanguages } from './conversation-languages.js';
import { v025Stream } from './stream.js';
import { cutTurnOf, cutTurnReply, cutTurnRest } from './cut-turns.js';
import { watchedTurn } from './watched-turn.js';
import { sendIsStreamed, streamedTurnEvents, turnEvents, upstreamStreams } from './turn-attempt.js';
import { noted } from './turn-tracker.js';
import { toldBeforeFirstEvent } from './told-before-first-event.js';
import { toldInTurnLanguage } from './told-in-turn-language.js';
import { latestTurnMessageOf } from './latest-turn-message.js';
import { noteFilesBeforeTurn } from './files-before-turn.js';
import { boundSendTurn, followPastBound, turnBound, unwatchedTurn } from './unwatched-turns.js';
import { endedTurnRepeated, noteSentTurnMessage, repeatedTurnResult, repeatedTurnStream } from './repeated-turn.js';
import { turnNoteStores } from './turn-notes.js';

export interface TurnCall {
  id: JsonRpcId;
  /** The 1.0 SendMessageRequest params from requestToV1 (not yet checked against the 1.0 model). */
  params: unknown;
  ctx: CallContext;
  abort(reason?: unknown): void;
  /** Offers its client's disconnect to the turn first (port-call.ts): a new task's turn may be followed on without it. */
  onClientGone(takesOn: (reason: unknown) => boolean): void;
  /** The request line's fields (`c.get('logFields')`): not the Hono context, which a streamed turn would keep whole. */
  logFields: RequestLogFields | undefined;
  logger: Logger;
}

/** How the facade's turns find their task: by contextId (Continuations), or by an id the caller chose (ClientTaskIds). */
export interface TurnRouting {
  turns: Continuations;
  ids: ClientTaskIds;
  /** The language each conversation's caller last wrote in. */
  languages: ConversationLanguages;
}

/**
 * The turn's task as the caller addresses it, and the turn begun on its context. Its URL images go with
 * it only while it is the caller's message: a permission answer is sent as iac-code's data part alone,
 * and a re-prompt sends nothing (as a base64 image, already a part, is dropped then).
 */
async function beginTurn(
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

/**
 * The turn's message as the facade runs it (input.ts); its URL images are fetched while the turn begins,
 * unless its client is at its turn cap by then: the core will refuse that turn, so nothing is fetched for it.
 */
function facadeInput(call: TurnCall, deps: V025FacadeDeps): TurnInput {
  const limits = deps.turnLimits;
  return turnInput(call.params, deps.options.bailian, cardAccepts(deps.cards.current()?.card), {
    signal: call.ctx.signal,
    logger: call.logger,
    slots: deps.imageSlots,
    ...(limits ? { turnCanRun: () => belowCap(limits.slots, call.ctx) } : {}),
  });
}

/** The reply to a message the facade refused before it became a turn, in the caller's language. */
const rejectedReply = async (request: SendMessageRequest, call: TurnCall, deps: V025FacadeDeps, routing: TurnRouting) =>
  replyOptions(deps, { words: wordsIn(await turnLanguageOf(deps, { message: request.message, principal: call.ctx.principal }, routing.languages)) });

/** message/send: the turn folded from the reply reducer's events into the one Task Bailian reads. */
export async function sendTurn(call: TurnCall, deps: V025FacadeDeps, routing: TurnRouting): Promise<V025SendMessageResult> {
  // Before the conversation is read from the registry: a store that is gone would fail that read unexplained.
  refuseTurnsWhileOutOfReach(deps.registry);
  const input = facadeInput(call, deps);
  const fold = createReplyFold();
  if (input.rejected) {
    const reply = createTurnReply(await rejectedReply(input.request, call, deps, routing));
    for await (const event of replyEvents(once({ task: input.rejected }), reply)) fold.add(event);
    return fold.result() as V025SendMessageResult;
  }
  const begun = await beginTurn(input, call, deps, routing);
  if ('repeated' in begun) return repeatedTurnResult(deps, begun, call.ctx, call.logFields);
  const { task, turn, reprompt, images, retried, attempt } = begun;
  const turnEnds = turnBound(begun.unwatched, call.abort, followPastBound(sendIsStreamed(turn.request, deps), deps, turn, call.ctx.principal));
  const bound = boundSendTurn(deps.options.requestTimeoutMs, turnEnds);
  // Its caller hanging up before the agent's first event, on a new task, is followed as its bound's passing is.
  call.onClientGone(turnEnds.callerGone);
  // Its caller hung up (not the bound, not a shutdown): the turn is noted at once, as a hung-up stream's is
  // (stream.ts onCancel), not once the upstream call unwound: the core lets the context's lane go before that, and
  // the conversation's next message on another replica reads the note as soon as the lane is free (continuation.ts).
  // Noted as read by nothing: the call's one answer never reached its caller, whatever the reply had folded.
  const hungUp = (): void => {
    if (deps.shutdown?.aborted || bound.passed) return;
    begun.unwatched.callerGone('nothing');
    turn.end();
  };
  onceAborted(call.ctx.signal, hungUp);
  try {
    const reply = createTurnReply(begun.reply);
    const request = await withLaterImages(turn.request, images);
    const run: AttemptRun = (sent, told) => turnEvents(sent, told ? withFields(call.ctx, told) : call.ctx, deps, attempt);
    const events =
      begun.cutRest ??
      (reprompt ? noted([{ task: reprompt }], attempt.tracker) : task.bind(retried ? inNewTaskIfGone(request, run, retried) : run(request)));
    const waitsForTurnEnd = request.configuration?.returnImmediately !== true;
    for await (const event of replyEvents(turnEnds.events(events), reply, { waitsForTurnEnd, answersAtInterruption: true })) fold.add(event);
    const result = fold.result();
    if (!result) throw A2AError.invalidAgentResponse('The upstream agent ended the stream without an event');
    // Failed by the gateway's bound, its user told the agent goes on: no turn the agent failed (facade-events.ts reasonOf).
    if (bound.passed && result.kind === 'task' && result.status.state === 'failed') noteLogFields(call.logFields, { stateReason: 'timeout' });
    return withoutGatewayMetadata(result);
  } catch (error) {
    throw begun.toldAtCut(error);
  } finally {
    offAborted(call.ctx.signal, hungUp);
    bound.clear();
    // Its caller hung up before the listener was added, or the bound passed or a shutdown cut it (hungUp tells which).
    if (call.ctx.signal.aborted) hungUp();
    turnEnds.ended(turn.end);
  }
}

/**
 * message/stream: the core's SendStreamingMessage as 0.2.5 SSE. While the message's URL images are
 * fetched the turn counts as accepted, so the caller's stream opens (then keeps alive) without waiting
 * for them, as it does for an agent that is slow to say its first word.
 */
export async function streamTurn(call: TurnCall, deps: V025FacadeDeps, routing: TurnRouting): Promise<Response> {
  refuseTurnsWhileOutOfReach(deps.registry);
  const input = facadeInput(call, deps);
  const streamOptions = { id: call.id, deps, logFields: call.logFields, signal: call.ctx.signal, abort: call.abort };
  if (input.rejected) {
    const rejected = input.rejected;
    return v025Stream(() => once({ task: rejected }), withFields(streamOptions, { reply: await rejectedReply(input.request, call, deps, routing) }));
  }
  const begun = await beginTurn(input, call, deps, routing);
  if ('repeated' in begun) return repeatedTurnStream(deps, begun, call.ctx, streamOptions);
  const { task, turn, reply, reprompt, images, retried, attempt } = begun;
  const send = (request: SendMessageRequest, onAccepted: () => void): AsyncIterable<StreamResponse> => {
    const run: AttemptRun = (sent, told) => streamedTurnEvents(sent, withFields(call.ctx, { onAccepted, ...told }), deps, attempt);
    return retried ? inNewTaskIfGone(request, run, retried) : run(request);
  };
  const upstream = (onAccepted: () => void): AsyncIterable<StreamResponse> =>
    images ? afterImages(turn.request, images, call.ctx.signal, onAccepted, send) : send(turn.request, onAccepted);
  const told = (error: unknown) => toldInTurnLanguage(error, call.params, call.ctx.principal, deps, routing);
  // Its first event's bound, as message/send's: a new task that said nothing yet is followed past it (unwatched-turns.ts).
  const streamed = upstreamStreams(deps);
  const bound = turnBound(begun.unwatched, call.abort, followPastBound(streamed, deps, turn, call.ctx.principal));
  // Its caller hanging up before the agent's first event, on a new task, is followed as the bound's passing is:
  // seen by the connection's close, or first by the stream's writer (v025Stream `callerGone`).
  call.onClientGone(bound.callerGone);
  const open = (onAccepted: () => void): AsyncIterable<StreamResponse> =>
    bound.events(
      begun.cutRest ?? (reprompt ? noted([{ task: reprompt }], attempt.tracker) : toldBeforeFirstEvent(task.bind(upstream(onAccepted)), told)),
    );
  const firstEventTimeoutMs = streamed ? deps.options.firstEventTimeoutMs : deps.options.requestTimeoutMs;
  const unwatched = withFields(begun.unwatched, { timedOut: bound.passed });
  const ends = {
    onEnd: () => bound.ended(turn.end),
    abort: bound.abort,
    callerGone: bound.callerGone,
    unwatched,
    reply,
    firstEventTimeoutMs,
    toldAtCut: begun.toldAtCut,
  };
  return v025Stream(open, withFields(streamOptions, ends));
}

async function* once<T>(item: T): AsyncGenerator<T> {
  yield item;
}

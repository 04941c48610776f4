import type { Logger } from 'pino';
import type { CallContext } from '../../core/agent-port.js';
import { refuseTurnsWhileOutOfReach } from '../../core/admission.js';
import { belowCap } from '../../core/turn-limits.js';
import { withFields, A2AError, type SendMessageRequest, type StreamResponse } from '../../model/index.js';
import type { V025SendMessageResult } from '../../protocol/v025/index.js';
import type { RequestLogFields } from '../shared/env.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';
import { noteLogFields } from '../shared/log-fields.js';
import { offAborted, onceAborted } from '../../own-class-reads.js';
import type { ClientTaskIds } from './turn/client-task-ids.js';
import type { Continuations } from './turn/continuation.js';
import { withoutGatewayMetadata } from './caller-metadata.js';
import { inNewTaskIfGone, type AttemptRun } from './turn/gone-task.js';
import { beginTurn } from './turn/begun-turn.js';
import type { V025FacadeDeps } from './deps.js';
import { cardAccepts, turnInput, type TurnInput } from './input.js';
import { afterImages, withLaterImages } from './turn/later-images.js';
import { createReplyFold, createTurnReply, replyEvents } from './reply/index.js';
import { replyOptions, turnLanguageOf, wordsIn } from './reply-options.js';
import type { ConversationLanguages } from './notes/conversation-languages.js';
import { v025Stream } from './stream.js';
import { sendIsStreamed, streamedTurnEvents, turnEvents, upstreamStreams } from './turn/turn-attempt.js';
import { noted } from './recovery/turn-tracker.js';
import { toldBeforeFirstEvent } from './turn/told-before-first-event.js';
import { toldInTurnLanguage } from './turn/told-in-turn-language.js';
import { boundSendTurn, followPastBound, turnBound } from './recovery/unwatched-turns.js';
import { repeatedTurnResult, repeatedTurnStream } from './turn/repeated-turn.js';

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
    const options = await rejectedReply(input.request, call, deps, routing);
    const reply = createTurnReply(options);
    for await (const event of replyEvents(once({ task: input.rejected(options.words) }), reply)) fold.add(event);
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
    const reply = await rejectedReply(input.request, call, deps, routing);
    const rejected = input.rejected(reply.words);
    return v025Stream(() => once({ task: rejected }), withFields(streamOptions, { reply }));
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

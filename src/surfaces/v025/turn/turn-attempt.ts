import type { CallContext } from '../../../core/agent-port.js';
import { withFields, type A2AError, type SendMessageRequest, type StreamResponse, type Task } from '../../../model/index.js';
import type { V025FacadeDeps } from '../deps.js';
import { directAnswerAsTask } from './direct-answer-task.js';
import { recoverableTurn } from '../recovery/turn-recovery.js';
import { polledBlockingTurn } from './polled-turn.js';
import type { TurnTracker } from '../recovery/turn-tracker.js';

/**
 * One attempt of a facade turn at the upstream (gone-task.ts may make another, in a new task), its events
 * noted in the turn's one tracker as they come (cut-turns.ts), from nothing: what a refused attempt before it
 * noted was never shown. `previous`: the task the turn continues, as it was before.
 */
export interface TurnAttempt {
  tracker: TurnTracker;
  previous?: Task | undefined;
  /**
   * The attempt's message has left for the agent (CallContext.onMessageSent, told by the upstream client, not
   * while it waits for a lane, a turn slot or a connection): a shutdown's cut from then on may leave it at work (cut-turns.ts).
   */
  onSent?: () => void;
  /** The turn's bound passed while its task still works, read with GetTask (polled-turn.ts): the error its user reads. */
  pastBound?: ((timedOut: A2AError) => A2AError) | undefined;
}

/** Whether the upstream's card says it streams (unknown: it is asked the blocking way, which every agent answers). */
export const upstreamStreams = (deps: V025FacadeDeps): boolean => deps.cards.current()?.card.capabilities.streaming === true;

/** The attempt's events: streamed and recovered (turn-recovery.ts), or its blocking answer, followed while its task works (polled-turn.ts); a direct Message answer as a task the facade keeps (direct-answer-task.ts). */
function attemptEvents(
  streamed: boolean,
  request: SendMessageRequest,
  ctx: CallContext,
  deps: V025FacadeDeps,
  turn: TurnAttempt,
): AsyncIterable<StreamResponse> {
  // gone-task.ts makes another attempt only when the one before showed nothing (its events held back, then dropped).
  turn.tracker.restart();
  const sending = turn.onSent ? withFields(ctx, { onMessageSent: turn.onSent }) : ctx;
  const events = streamed ? recoverableTurn(request, sending, deps, turn.tracker, turn.previous) : polledBlockingTurn(request, sending, deps, turn);
  return directAnswerAsTask(events, request, ctx, deps);
}

/**
 * message/send sees the turn through the same events as message/stream whenever the upstream can
 * stream them, so both show the same words; a caller that asked not to wait, or an upstream that
 * does not stream, gets the blocking answer (replayed as events by the reducer).
 */
export function turnEvents(request: SendMessageRequest, ctx: CallContext, deps: V025FacadeDeps, turn: TurnAttempt): AsyncIterable<StreamResponse> {
  return attemptEvents(sendIsStreamed(request, deps), request, ctx, deps, turn);
}

/** Whether message/send reads `request`'s turn as a stream (turnEvents), which has a first event before its end. */
export const sendIsStreamed = (request: SendMessageRequest, deps: V025FacadeDeps): boolean =>
  upstreamStreams(deps) && request.configuration?.returnImmediately !== true;

/**
 * message/stream's turn: streamed when the upstream streams; else its blocking answer, waited for (Bailian
 * streams every turn, whatever the agent can do), and bounded as a blocking call is rather than as a
 * first event.
 */
export function streamedTurnEvents(
  request: SendMessageRequest,
  ctx: CallContext,
  deps: V025FacadeDeps,
  turn: TurnAttempt,
): AsyncIterable<StreamResponse> {
  if (upstreamStreams(deps)) return attemptEvents(true, request, ctx, deps, turn);
  const waited =
    request.configuration?.returnImmediately === true
      ? withFields(request, { configuration: withFields(request.configuration, { returnImmediately: false }) })
      : request;
  return attemptEvents(false, waited, ctx, deps, turn);
}

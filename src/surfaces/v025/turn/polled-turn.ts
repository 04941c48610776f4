import type { CallContext } from '../../../core/agent-port.js';
import { A2AError, isActiveState, type SendMessageRequest, type StreamResponse, type Task } from '../../../model/index.js';
import type { V025FacadeDeps } from '../deps.js';
import { polledRest, readerOf } from '../recovery/turn-recovery.js';
import { restCursor, restEvents, type TurnSoFar } from '../recovery/turn-rest.js';
import type { TurnAttempt } from './turn-attempt.js';

/**
 * A turn asked the blocking way (an agent whose card does not stream), followed to its end. Many agents answer a
 * blocking SendMessage with the task still working and go on with it in the background (an a2a-js 1.x executor that
 * returns once it took the task up); a 1.0 client reads the rest with GetTask, but a Bailian user cannot, and read
 * only that the agent ended its turn early. Such a task is read (GetTask, turn-recovery.ts polledRest: 0.25 s, then
 * less often, up to 2 s) until it ends or asks, and what it said is relayed as a streaming agent would have sent
 * it, into the same reply as a stream's (one path for message/send and message/stream): its working words first,
 * then its answer, files or question. Within `upstream.request-timeout-ms` from the blocking answer (polledRest
 * gives up before a wait would pass it; message/send's own bound, from the turn's start, may come first); past it,
 * while the task still works, the user reads that the agent goes on (`pastBound`: unwatched-turns.ts timedOut,
 * which notes the turn so the conversation's next message shows its rest). A caller that hangs up stops the reading
 * (its turn is noted as any hung-up turn is).
 */
export async function* polledBlockingTurn(
  request: SendMessageRequest,
  ctx: CallContext,
  deps: V025FacadeDeps,
  turn: Pick<TurnAttempt, 'tracker' | 'previous' | 'pastBound'>,
): AsyncGenerator<StreamResponse> {
  ctx.onAccepted?.();
  const answer: StreamResponse = await deps.port.sendMessage(request, ctx);
  const before = turn.previous && turn.previous.id === request.message.taskId ? turn.previous : undefined;
  const shown = turn.tracker.sentAs(before ? { sent: request.message, previous: before } : { sent: request.message });
  shown.note(answer);
  yield answer;
  // A caller that asked not to wait reads the task as it was taken; a task that ended or asks is the whole answer.
  if (!('task' in answer) || !isActiveState(answer.task.status.state) || request.configuration?.returnImmediately === true) return;
  for (const event of saidSoFar(answer.task, shown.soFar(), before)) {
    shown.note(event);
    yield event;
  }
  const reader = readerOf(ctx, deps, before);
  const deadline = reader.boundMs > 0 ? Date.now() + reader.boundMs : Infinity;
  const end = yield* polledRest(answer.task.id, shown, reader, deadline, 0);
  if (end === 'ended') return;
  if (end === 'bound') throw turn.pastBound ? turn.pastBound(A2AError.upstreamTimedOut()) : A2AError.upstreamTimedOut();
  // Its caller left, or the turn's own bound passed (message/send's): the reason it ended. Else the agent is gone:
  // the turn ends as a stream that broke off does.
  if (ctx.signal.aborted) throw ctx.signal.reason;
}

/**
 * What the working task the blocking call answered with said this turn, as the working updates a streaming agent
 * would have sent: the reply shows nothing of a working Task by itself (reply/reducer.ts onTask). Its current status
 * message too, which a later reading (turn-rest.ts restEvents) holds back until the status moves on.
 */
function saidSoFar(task: Task, turn: TurnSoFar, before: Task | undefined): StreamResponse[] {
  const earlier = before?.artifacts;
  const { events } = restEvents(task, restCursor(task, turn), turn, earlier);
  const message = task.status.message;
  if (message?.role !== 'ROLE_AGENT' || message.parts.length === 0) return events;
  const status = { state: task.status.state, message };
  return [...events, { statusUpdate: { taskId: task.id, contextId: task.contextId ?? task.id, status } }];
}

import type { CallContext } from '../../core/agent-port.js';
import { tapIterable } from '../../core/iterables.js';
import { withFields, A2AError, eventTaskState, isInterruptedState, isTerminalState, type StreamResponse } from '../../model/index.js';
import { ACCEPT_GRACE_MS, startStream, type StreamStartOptions } from './stream-start.js';

export { STREAM_ACCEPTED_COMMENT } from './stream-start.js';

export const ENDED_WITHOUT_EVENT = 'The upstream agent ended the stream without an event';
export const ENDED_EARLY = 'The upstream agent ended the stream before the task reached a final or interrupted state';

/**
 * The stream as relayed, failing with -32006 when the source ends before the turn did: the last
 * state it reported is not terminal or interrupted (none at all, SUBMITTED/WORKING then the end, a
 * body that stopped). A direct Message reply (one before any task) is a whole answer. It ends with a
 * terminal state or a direct Message: what an agent sends after either cannot change a finished task, and
 * a caller must not see a completed task go back to working. A Message inside a task's stream breaks the
 * protocol: it is relayed, and the task's own events go on; a stream that ends at it has ended its turn
 * (the translators make an older agent's such Message its task's answer: translate/task-stream.ts).
 * `return()` is forwarded at once. One read: the stream is iterated once, as every relayed stream is.
 */
export function requireTurnEnd(events: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> {
  let finished = false;
  let inTask = false;
  const isDirectReply = (event: StreamResponse): boolean => !inTask && 'message' in event && event.message !== undefined;
  return tapIterable(events, {
    item(event) {
      if ('message' in event) finished = true;
      else inTask = true;
      const state = eventTaskState(event);
      if (state !== undefined) finished = isTerminalState(state) || isInterruptedState(state);
    },
    last(event) {
      const state = eventTaskState(event);
      return state !== undefined ? isTerminalState(state) : isDirectReply(event);
    },
    end(how) {
      if (how === 'done' && !finished) throw A2AError.invalidAgentResponse(ENDED_EARLY);
    },
  });
}

export interface OpenedStream<T = StreamResponse> {
  /** The first event, when it came before the upstream's acceptance (for the request log). */
  first?: T;
  /** The upstream accepted the call before any event: the caller's stream opens with a comment now. */
  quiet: boolean;
  events: AsyncIterable<T>;
}

/**
 * The first pull of a stream, the same on every edge: failures before the first event or the upstream's
 * acceptance are thrown (a plain error answer), a source that ends without any event is -32006; the first
 * event is bounded by `firstEventTimeoutMs` (stream-start.ts).
 */
export async function openStream<T>(
  open: (onAccepted: () => void) => AsyncIterable<T>,
  options: Omit<StreamStartOptions, 'acceptGraceMs'>,
): Promise<OpenedStream<T>> {
  const started = await startStream(open, withFields(options, { acceptGraceMs: ACCEPT_GRACE_MS }));
  if (started.began === 'ended') throw A2AError.invalidAgentResponse(ENDED_WITHOUT_EVENT);
  return { quiet: started.began === 'accepted', events: started.rest, ...(started.first ? { first: started.first } : {}) };
}

/** Starts a 1.0 stream for a 1.0 edge: openStream, then the end-of-turn rule above. */
export async function openV1Stream(
  run: (ctx: CallContext) => AsyncIterable<StreamResponse>,
  call: { ctx: CallContext; abort(): void },
  firstEventTimeoutMs: number,
): Promise<OpenedStream> {
  const opened = await openStream((onAccepted) => run(withFields(call.ctx, { onAccepted })), { firstEventTimeoutMs, abort: call.abort });
  return withFields(opened, { events: requireTurnEnd(opened.events) });
}

import { headThenRest } from '../../core/iterables.js';
import { A2AError, GATEWAY_FAILURES } from '../../model/index.js';

export interface StreamStart<T> {
  /**
   * How the stream began: `event` (its first event is in), `ended` (the source ended without any),
   * or `accepted` (the upstream took the call and nothing came yet: commit the response now).
   */
  began: 'event' | 'ended' | 'accepted';
  /** The first event, when `began` is `event`. */
  first?: T;
  /** The whole stream from its first event on; `return()` reaches the source directly. */
  rest: AsyncIterable<T>;
}

export interface StreamStartOptions {
  /** `upstream.first-event-timeout-ms`; 0: wait as long as it takes. */
  firstEventTimeoutMs: number;
  /** Ends the upstream call (the call's abort). */
  abort(): void;
  /**
   * After the upstream's acceptance, how long to still wait for the first event before answering
   * `accepted`: an agent that answers at once (the usual case) gets its first event, or its first
   * error, into the decision, and only a quiet one makes the caller's stream open empty. Default 0.
   */
  acceptGraceMs?: number;
  /**
   * How an edge tells its first event's bound passing, at that moment (the 0.2.5 facade: a turn left running at
   * the agent, unwatched-turns.ts); by default the time-out as it is.
   */
  toldAtBound?(timedOut: A2AError): unknown;
}

/** The comment a stream opens with when the upstream accepted the call but has sent nothing yet. */
export const STREAM_ACCEPTED_COMMENT = 'accepted';

/**
 * How long a stream the upstream accepted may still take for its first event before the caller's
 * SSE response opens without it: short enough for a client to see headers well within a second,
 * long enough that an agent answering at once still gets its first event (and the request log line
 * its task) or its first error (a plain error answer) into the response, as before acceptance counted.
 */
export const ACCEPT_GRACE_MS = 150;

const ignore = (): void => undefined;

export const firstEventTimeout = (ms: number): A2AError =>
  A2AError.upstreamTimedOut(`${GATEWAY_FAILURES.upstreamTimedOut}: no event within ${ms} ms of the call`);

/**
 * Opens a stream and waits for whichever comes first: its first event, its end, an error (thrown:
 * the caller can still answer a plain error), or the upstream's acceptance (`onAccepted`, handed to
 * `open`; with `acceptGraceMs`, an event or an error that follows the acceptance within the grace
 * still counts as first). The first event is bounded by `firstEventTimeoutMs` from the call on:
 * before acceptance the timeout is thrown here; after it, `rest` fails with it, and the upstream call
 * is aborted once that failure has been delivered (aborting at once would look like the client
 * leaving, and end the caller's stream without the error).
 */
export async function startStream<T>(open: (onAccepted: () => void) => AsyncIterable<T>, options: StreamStartOptions): Promise<StreamStart<T>> {
  let accept!: () => void;
  const accepted = new Promise<'accepted'>((resolve) => (accept = () => resolve('accepted')));
  // The upstream client keeps `onAccepted` for the call's life: once the start is decided it reaches a no-op, so an
  // open stream does not keep the race below (its promises and their reactions) alive.
  const iterator = open(() => accept())[Symbol.asyncIterator]();

  const ms = options.firstEventTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timedOut =
    ms > 0
      ? new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = firstEventTimeout(ms);
            reject(options.toldAtBound ? options.toldAtBound(error) : error);
          }, ms);
        })
      : undefined;
  // Raced below; but a source whose first read throws at once leaves the race unbuilt and this alone.
  timedOut?.catch(() => undefined);
  // The cleared timer is let go as well: the stream's `rest` keeps this scope for as long as the stream is open.
  const stopTimer = (): void => {
    clearTimeout(timer);
    timer = undefined;
  };
  const head = iterator.next().finally(stopTimer);
  const bounded = timedOut ? Promise.race([head, timedOut]) : head;
  // Whoever loses the race below still settles later: nobody may see that as unhandled.
  bounded.catch(() => undefined);

  type Outcome = { result: IteratorResult<T> } | { error: unknown };
  const outcome: Promise<Outcome> = bounded.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  let winner: Outcome | 'accepted' = await Promise.race([outcome, accepted]);
  const grace = options.acceptGraceMs ?? 0;
  if (winner === 'accepted' && grace > 0) {
    // An event, or a failure: an agent that opens its stream and refuses in its first event (a2a-js 0.2.5
    // servers answer an unknown task so) has accepted nothing, and its refusal is a plain error answer,
    // typed on every binding, as a 1.0 server that reads its first event before its headers answers it.
    // An end right after acceptance still opens the stream (it ends there, in the edge's own terms).
    let graceTimer: NodeJS.Timeout | undefined;
    const quiet = new Promise<'quiet'>((resolve) => (graceTimer = setTimeout(() => resolve('quiet'), grace)));
    const soon = await Promise.race([outcome, quiet]);
    clearTimeout(graceTimer);
    if (soon !== 'quiet' && ('error' in soon || !soon.result.done)) winner = soon;
  }
  accept = ignore;
  if (winner !== 'accepted' && 'error' in winner) {
    stopTimer();
    options.abort();
    throw winner.error;
  }

  const pending: Promise<IteratorResult<T>> =
    winner === 'accepted'
      ? bounded.catch((error: unknown) => {
          setImmediate(options.abort);
          throw error;
        })
      : Promise.resolve(winner.result);
  // A caller that never reads on (gone, or still busy when the bound passes) must not leave the
  // timeout unhandled: Node ends the process on an unhandled rejection. A reader still gets it.
  pending.catch(() => undefined);
  const rest = headThenRest(pending, iterator, stopTimer);
  const began = winner === 'accepted' ? 'accepted' : winner.result.done ? 'ended' : 'event';
  const first = winner !== 'accepted' && !winner.result.done ? { first: winner.result.value } : {};
  return { began, ...first, rest };
}

import { A2AError } from '../../model/index.js';

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
}

export const firstEventTimeout = (ms: number): A2AError =>
  A2AError.internal(`Upstream agent timed out: no event within ${ms} ms of the call`);

/**
 * Opens a stream and waits for whichever comes first: its first event, its end, an error (thrown:
 * the caller can still answer a plain error), or the upstream's acceptance (`onAccepted`, handed to
 * `open`). The first event is bounded by `firstEventTimeoutMs` from the call on: before acceptance
 * the timeout is thrown here; after it, `rest` fails with it, and the upstream call is aborted once
 * that failure has been delivered (aborting at once would look like the client leaving, and end the
 * caller's stream without the error).
 */
export async function startStream<T>(open: (onAccepted: () => void) => AsyncIterable<T>, options: StreamStartOptions): Promise<StreamStart<T>> {
  let accept!: () => void;
  const accepted = new Promise<'accepted'>((resolve) => (accept = () => resolve('accepted')));
  const iterator = open(() => accept())[Symbol.asyncIterator]();

  const ms = options.firstEventTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timedOut =
    ms > 0
      ? new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(firstEventTimeout(ms)), ms);
        })
      : undefined;
  const stopTimer = (): void => clearTimeout(timer);
  const head = iterator.next().finally(stopTimer);
  const bounded = timedOut ? Promise.race([head, timedOut]) : head;
  // Whoever loses the race below still settles later: nobody may see that as unhandled.
  bounded.catch(() => undefined);

  let winner: IteratorResult<T> | 'accepted';
  try {
    winner = await Promise.race([bounded, accepted]);
  } catch (error) {
    stopTimer();
    options.abort();
    throw error;
  }

  let pending: Promise<IteratorResult<T>> | undefined =
    winner === 'accepted'
      ? bounded.catch((error: unknown) => {
          setImmediate(options.abort);
          throw error;
        })
      : Promise.resolve(winner);
  const rest: AsyncIterator<T> = {
    next: () => {
      if (!pending) return iterator.next();
      const first = pending;
      pending = undefined;
      return first;
    },
    return: async () => {
      stopTimer();
      pending = undefined;
      if (iterator.return) return iterator.return();
      return { done: true, value: undefined };
    },
  };
  const began = winner === 'accepted' ? 'accepted' : winner.done ? 'ended' : 'event';
  return { began, ...(began === 'event' ? { first: (winner as IteratorResult<T>).value as T } : {}), rest: { [Symbol.asyncIterator]: () => rest } };
}

import { A2AError, toA2AError, type StreamResponse } from '../../model/index.js';
import type { WatchedTurn } from './cut-turns.js';
import type { FacadeWords } from './reply/index.js';

/**
 * A facade turn its user stops watching before its end: a message/send past `upstream.request-timeout-ms`, a
 * message/stream whose caller (Bailian, at its own time-out) hung up. Ending the call does not stop the agent
 * (iac-code's turns run for minutes), so such a turn is noted as a shutdown's cut is (cut-turns.ts): the
 * conversation's next message shows its rest (its answer, its question) instead of being sent as the answer to
 * a question its user never read, and message/send's user is told the agent goes on and how to read its end
 * (words.turnLeftRunning), not that it timed out, which would have them send the request again and run it twice.
 */
export interface SendBound {
  /** The turn ended before its bound. */
  clear(): void;
  /** The turn's events; the error that ends them once the bound left the turn running is told in words.turnLeftRunning. */
  told(events: AsyncIterable<StreamResponse>, words: FacadeWords): AsyncIterable<StreamResponse>;
}

/**
 * message/send's bound (a streamed message/send is bounded like a blocking call): past it the upstream call is
 * aborted and the turn ends as failed, with what was said so far. A turn whose task is known (named by its
 * events, or the task its sent message followed up) and still at work is left running, noted; a new task that
 * named itself in no event yet, or a message never sent, keeps its time-out.
 */
export function boundSendTurn(abort: (reason: unknown) => void, ms: number, watch: WatchedTurn): SendBound {
  let leftRunning = false;
  const timer =
    ms > 0
      ? setTimeout(() => {
          leftRunning = watch.unwatched();
          abort(A2AError.upstreamTimedOut());
        }, ms)
      : undefined;
  return {
    clear: () => clearTimeout(timer),
    async *told(events, words) {
      try {
        yield* events;
      } catch (error) {
        throw leftRunning ? toA2AError(error).toldAs(words.turnLeftRunning) : error;
      }
    },
  };
}

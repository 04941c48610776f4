import { A2AError } from '../../model/index.js';
import type { WatchedTurn } from './cut-turns.js';
import type { FacadeWords } from './reply/index.js';

/**
 * A facade turn its user stops watching before its end: a message/send past `upstream.request-timeout-ms`, a
 * message/stream whose caller (Bailian, at its own time-out) hung up. Ending the call does not stop the agent
 * (iac-code's turns run for minutes), so such a turn is noted as a shutdown's cut is (cut-turns.ts): the
 * conversation's next message shows its rest (its answer, its question) instead of being sent as the answer to
 * a question its user never read, and message/send's user is told the agent goes on and how to read its end
 * (words.turnLeftRunning), not that it timed out, which would have them send the request again and run it twice.
 *
 * message/send's bound (a streamed message/send is bounded like a blocking call): past it the upstream call is
 * aborted and the turn ends as failed, with what was said so far. A turn whose task is known (named by its
 * events, or the task its sent message followed up) and still at work is left running, noted, and the call is
 * aborted with words.turnLeftRunning as its reason, which the reply shows; a new task that named itself in no
 * event yet, or a message never sent, keeps its time-out.
 */
export function boundSendTurn(abort: (reason: unknown) => void, ms: number, watch: WatchedTurn, words: FacadeWords): { clear(): void } {
  if (ms <= 0) return { clear: () => undefined };
  const timer = setTimeout(() => {
    const timedOut = A2AError.upstreamTimedOut();
    abort(watch.unwatched() ? timedOut.toldAs(words.turnLeftRunning) : timedOut);
  }, ms);
  return { clear: () => clearTimeout(timer) };
}

import { A2AError } from '../../model/index.js';
import type { WatchedTurn } from './cut-turns.js';
import type { FacadeWords } from './reply/index.js';

/**
 * A facade turn its user stops watching before its end: a message/send past `upstream.request-timeout-ms`, a
 * message/stream past `upstream.first-event-timeout-ms`, or whose caller (Bailian, at its own time-out) hung up,
 * before or after the agent's first event. Ending the call does not stop the agent (iac-code's turns run for
 * minutes), so such a turn is noted as a shutdown's cut is (cut-turns.ts): the conversation's next message shows
 * its rest (its answer, its question) instead of being sent as the answer to a question its user never read, and
 * a user still waiting is told the agent goes on and how to read its end (words.turnLeftRunning), not that it
 * timed out, which would have them send the request again and run it twice.
 *
 * Only a turn whose task is known can be noted: named by its events, or the task its message followed up once that
 * message left the gateway (WatchedTurn.sent). A new task that named itself in no event yet, or a message that
 * never left (still waiting for a connection, refused), is not: its user is told the time-out as it is, and the
 * conversation's next message is sent as any other.
 */
export interface UnwatchedTurn {
  /**
   * Its caller hung up (or a shutdown cut it) before its end: noted when it can be. `read: 'nothing'`: a message/send,
   * whose one answer its caller never read, so the next message shows the turn whole, not after what passed the reply.
   */
  callerGone(read?: 'nothing'): void;
  /**
   * The gateway's bound on it passed and its call is ended (message/send's, message/stream's first event): the
   * time-out as its user reads it, words.turnLeftRunning when the turn is noted (words.notAnsweredYet while the reply
   * holds a follow-up's waiting task that asks what its user just answered: WatchedTurn.heldRepeatsQuestion).
   */
  timedOut(timedOut: A2AError): A2AError;
  /** Its stream tells what it wrote (stream.ts): from now on only that counts as shown. */
  shownAsWritten(): WrittenFrames;
}

/**
 * What a stream tells its turn of the frames it writes: what was relayed when a frame was made (`mark`), that a
 * frame was written while its caller was there (`wrote`), and that its caller hung up as it ended (`leftAtEnd`).
 */
export interface WrittenFrames {
  // A method, not a getter: the object is made for every open stream, and a literal with an accessor is a
  // dictionary-mode object (docs/performance.md).
  mark(): number;
  wrote(mark: number): void;
  leftAtEnd(): void;
}

/** The one decision of message/send and message/stream on a turn left unwatched. */
export function unwatchedTurn(watch: WatchedTurn, words: FacadeWords): UnwatchedTurn {
  return {
    callerGone: (read) => void watch.unwatched(read),
    timedOut(timedOut) {
      if (!watch.unwatched(undefined, 'timed-out')) return timedOut;
      return timedOut.toldAs(watch.heldRepeatsQuestion() ? words.notAnsweredYet : words.turnLeftRunning);
    },
    shownAsWritten() {
      const { tracker } = watch;
      tracker.shownAsWritten();
      return {
        mark: () => tracker.mark,
        wrote: (mark) => tracker.wrote(mark),
        leftAtEnd: () => watch.leftAtEnd(),
      };
    },
  };
}

/**
 * message/send's bound (a streamed message/send is bounded like a blocking call): past it the upstream call is
 * aborted with the time-out as its user reads it (UnwatchedTurn.timedOut) as its reason, which the reply shows,
 * and the turn ends as failed, with what was said so far. `passed`: it did (its caller is still there to read that).
 */
export function boundSendTurn(abort: (reason: unknown) => void, ms: number, turn: UnwatchedTurn): { readonly passed: boolean; clear(): void } {
  let passed = false;
  const timer =
    ms > 0
      ? setTimeout(() => {
          passed = true;
          abort(turn.timedOut(A2AError.upstreamTimedOut()));
        }, ms)
      : undefined;
  return {
    get passed() {
      return passed;
    },
    clear: () => clearTimeout(timer),
  };
}

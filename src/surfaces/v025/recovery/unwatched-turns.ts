import { A2AError, type StreamResponse } from '../../../model/index.js';
import { outlivingCall } from '../../shared/outliving-calls.js';
import { FirstEventFollow, type FollowBound } from './first-event-follow.js';
import type { WatchedTurn } from './watched-turn.js';
import type { V025FacadeDeps } from '../deps.js';
import type { FacadeWords } from '../reply/index.js';

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
 * message left the gateway (WatchedTurn.sent). A new task that named itself in no event yet is followed, past a
 * bound or past its caller hanging up, until it does (turnBound); a message that never left (still waiting for a
 * connection, refused) is not noted: its user is told the time-out as it is, and the conversation's next message
 * is sent as any other.
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
  /**
   * message/send's bound passed before the agent's first event, on a new task whose message was sent: its time-out as
   * its user reads it (words.notStartedYet) when the call is followed until that event names the task (boundSendTurn),
   * the turn noted then as a hang-up whose caller read nothing; undefined for any other turn (timedOut tells it).
   */
  followedToFirstEvent(timedOut: A2AError): A2AError | undefined;
  /**
   * Its caller hung up before the agent's first event, on a new task whose message was sent: true when the call is
   * followed until that event names the task (TurnBound.callerGone), the turn noted then as a hang-up whose caller
   * read nothing; false for any other turn (its caller's close ends the call, callerGone tells it).
   */
  followedAfterHangUp(): boolean;
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
    followedToFirstEvent(timedOut) {
      if (!watch.awaitsFirstEvent()) return undefined;
      watch.unwatched('nothing', 'timed-out');
      // Nothing the call gives from now on is read, its end neither: the note shows the turn whole.
      watch.tracker.shownAsWritten();
      return timedOut.toldAs(words.notStartedYet);
    },
    followedAfterHangUp() {
      if (!watch.awaitsFirstEvent()) return false;
      // A broken connection, not the gateway's bound: the note's lead says so. Nothing the call gives is read.
      watch.unwatched('nothing');
      watch.tracker.shownAsWritten();
      return true;
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
 * A turn's bound, the same decision for message/send's (`upstream.request-timeout-ms`, boundSendTurn) and
 * message/stream's first event (`upstream.first-event-timeout-ms`, stream.ts): when it passes the upstream call is
 * ended, its user told why (UnwatchedTurn.timedOut). A streamed turn (`follow`) whose message left as a new task's
 * and whose first event has not come is not ended: no event named its task, so nothing could note it, and its user,
 * told the time-out, would send the request again and run it twice. Its reply ends with words.notStartedYet
 * instead, and the call is read on, unwatched, until its first event names the task (first-event-follow.ts), then
 * noted as a hung-up caller's turn is and ended: the conversation's next message shows its reply (cut-turns.ts). A
 * blocking call has no first event before its end (the upstream client's own `request-timeout-ms` cuts it then).
 * Its caller hanging up before that first event (Bailian's own time-out) is decided the same way (callerGone): the
 * call is followed on the same path, which its caller's close would otherwise end while the agent goes on unread.
 */
export interface TurnBound {
  /** The bound passed: its time-out as its user reads it; the call is followed on past it when it can be. */
  passed(timedOut: A2AError): A2AError;
  /** The turn's events as its reply reads them: cut off at the bound when the turn is followed past it. */
  events(source: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse>;
  /** Ends the upstream call (the call's abort), unless it is followed past the bound: it ends once its first event came. */
  abort(reason?: unknown): void;
  /** Runs the turn's `end`: at once, or once a turn followed past the bound let go of its call. */
  ended(end: () => void): void;
  /**
   * Its caller hung up (port-call.ts onClientGone, a stream's writer): true when the call is followed on to its first
   * event as past the bound (already, or from now on: its reply ends with `reason`), so that nothing else ends it;
   * false when the caller's close ends it as before (a shutdown's, the first event in, a message never sent).
   */
  callerGone(reason?: unknown): boolean;
}

export function turnBound(
  turn: UnwatchedTurn,
  abort: (reason?: unknown) => void,
  follow: (FollowBound & { onFollow?: (() => void) | undefined }) | undefined,
): TurnBound {
  const followed = follow ? new FirstEventFollow(abort) : undefined;
  /** Follows the call on to its first event, its reply ended with what `noted` tells (undefined: not followed). */
  const followOn = <T>(noted: () => T | undefined): T | undefined => {
    // Past the calls its caller may have outlive it (outliving-calls.ts), the turn is ended as before.
    const outlives = followed?.awaited && follow ? outlivingCall(follow.shutdown, follow.principal) : undefined;
    const told = outlives ? noted() : undefined;
    if (told === undefined || !followed || !follow || !outlives) {
      outlives?.();
      return undefined;
    }
    followed.follow(told, follow, outlives);
    follow.onFollow?.();
    return told;
  };
  return {
    passed: (timedOut) => followOn(() => turn.followedToFirstEvent(timedOut)) ?? turn.timedOut(timedOut),
    callerGone(reason = new DOMException('The client went away', 'AbortError')) {
      if (followed?.following) return true;
      if (follow?.shutdown?.aborted) return false;
      return followOn(() => (turn.followedAfterHangUp() ? reason : undefined)) !== undefined;
    },
    events: (source) => (followed ? followed.events(source) : source),
    abort: (reason) => void (followed?.following || abort(reason)),
    ended: (end) => (followed ? followed.ended(end) : end()),
  };
}

/** message/send's bound on its turn (boundSendTurn). */
export interface SendBound {
  /** It passed (its caller is still there to read that, unless the turn is followed past it: then answered already). */
  readonly passed: boolean;
  clear(): void;
}

/**
 * message/send's bound (a streamed message/send is bounded like a blocking call): past it the upstream call is
 * aborted with the time-out as its user reads it (TurnBound.passed) as its reason, which the reply shows, and the
 * turn ends as failed, with what was said so far; or, a new task's turn that said nothing yet, it is followed on.
 */
export function boundSendTurn(ms: number, bound: TurnBound): SendBound {
  return new SendTurnBound(ms, bound);
}

// A class, not a literal with a `passed` getter: that literal is a dictionary-mode object, some hundreds of bytes more
// on every facade send (docs/performance.md).
class SendTurnBound implements SendBound {
  #passed = false;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(ms: number, bound: TurnBound) {
    this.#timer =
      ms > 0
        ? setTimeout(() => {
            this.#passed = true;
            bound.abort(bound.passed(A2AError.upstreamTimedOut()));
          }, ms)
        : undefined;
  }

  get passed(): boolean {
    return this.#passed;
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * How a streamed turn (`streamed`) is followed past its bound to its first event (turnBound): for
 * as long again as the longer of a turn's two bounds (`request-timeout-ms`, `first-event-timeout-ms`; none when either is 0).
 */
export function followPastBound(streamed: boolean, deps: V025FacadeDeps, turn: { followed?: (() => void) | undefined }, principal: string) {
  if (!streamed) return undefined;
  const { requestTimeoutMs, firstEventTimeoutMs } = deps.options;
  const ms = requestTimeoutMs > 0 && firstEventTimeoutMs > 0 ? Math.max(requestTimeoutMs, firstEventTimeoutMs) : 0;
  return { ms, shutdown: deps.shutdown, onFollow: turn.followed, principal };
}

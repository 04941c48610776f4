import { DONE, Forwarder, returnThenDone } from '../../../core/iterable-stages.js';
import { isTerminalState, type StreamResponse } from '../../../model/index.js';
import { settlesWithin } from '../../../settles-within.js';

/**
 * A task event that does not end the turn: how agents open a turn (iac-code's new task, SUBMITTED; an a2a-js
 * agent's task as it stood before the message), before they did anything. Held back until the next event
 * says whether the turn went on or was refused, so that a refused attempt shows nothing.
 */
const isOpening = (event: StreamResponse): boolean => 'task' in event && !isTerminalState(event.task.status.state);

/**
 * How long an opening waits for the event after it. iac-code's refusal comes right after its opening (one run of
 * its executor); an agent that says nothing more for longer is at work, and its caller is shown the opening then.
 */
const OPENING_GRACE_MS = 500;

/**
 * One attempt of a turn that its first events may refuse (gone-task.ts says when, and what goes instead): nothing of
 * it is shown until they decided, and once they did it steps aside. Its stream is then read directly, by a Stage above
 * too (a Forwarder), with no frame, promise or event of this layer's own: every follow-up the facade aims at a task
 * goes through it, at iac-code every turn, and nearly all of them are taken. An async generator over the whole turn
 * cost some 9 KB per follow-up (bench/README.md, fifty-ninth pass), in its setup, not per event.
 *
 * Judged on the first event, or the event after it when the first is an opening (one opening is held, not each: an
 * agent that streams its turn as task snapshots sends opening after opening); an agent quiet past the grace after its
 * opening is at work, and the attempt is taken. A failure before any event may be answered by another stream too.
 */
export abstract class JudgedAttempt<R> extends Forwarder implements AsyncIterableIterator<StreamResponse> {
  /** What is read once judged: the attempt's own stream, or the one shown instead of it. */
  #reading: AsyncIterator<StreamResponse> | undefined;
  /** The first read, under way while the attempt is judged. */
  #judging: Promise<IteratorResult<StreamResponse>> | undefined;
  #closed = false;
  /** Read while judging, shown before `#reading` is read on: the opening held back, then the read made after it. */
  #opening: StreamResponse | undefined;
  #after: Promise<IteratorResult<StreamResponse>> | undefined;

  /** The attempt's own stream, opened on the first read. */
  protected abstract open(): AsyncIterable<StreamResponse>;
  /** The attempt goes on: awaited before anything of it is shown. */
  protected abstract taken(): Promise<void> | undefined;
  /** The stream shown instead of a failure before any event; undefined: the failure is the turn's, passed on. */
  protected abstract insteadOfFailure(error: unknown): AsyncIterable<StreamResponse> | undefined;
  /** What goes again when the first event that is not an opening (or the stream's end) refuses the turn; undefined: taken. */
  protected abstract refusal(first: IteratorResult<StreamResponse>): R | undefined;
  /** The refused attempt is dropped: awaited before its stream is closed. */
  protected abstract dropped(): Promise<void> | undefined;
  /** The stream shown instead of the refused attempt, once its own is closed. */
  protected abstract again(refusal: R): Promise<AsyncIterable<StreamResponse>>;

  forwardsTo(): AsyncIterator<StreamResponse> | undefined {
    return this.#judging || this.#opening || this.#after || this.#closed ? undefined : this.#reading;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamResponse>> {
    if (this.#closed) return Promise.resolve(DONE);
    // A read while the first is under way waits for it, as a generator's does.
    if (this.#judging) return this.#judging.then(() => this.next());
    if (!this.#reading) {
      const judging = this.#judge();
      // What opens the attempt threw: it is over, as a generator whose body threw.
      if (this.#reading) this.#judging = judging;
      else this.#closed = true;
      return judging;
    }
    const opening = this.#opening;
    if (opening) {
      this.#opening = undefined;
      return Promise.resolve({ done: false, value: opening });
    }
    const after = this.#after;
    this.#after = undefined;
    return after ?? this.#reading.next();
  }

  return(): Promise<IteratorResult<StreamResponse>> {
    this.#closed = true;
    this.#opening = undefined;
    this.#after = undefined;
    // Returned before its first read, it opened nothing; while judged, whatever is read on once it is.
    const judging = this.#judging;
    if (!judging) return returnThenDone(this.#reading);
    return judging.then(
      () => returnThenDone(this.#reading),
      () => DONE,
    );
  }

  async #judge(): Promise<IteratorResult<StreamResponse>> {
    const source = this.open()[Symbol.asyncIterator]();
    this.#reading = source;
    try {
      let first: IteratorResult<StreamResponse>;
      try {
        first = await source.next();
      } catch (error) {
        const instead = this.insteadOfFailure(error);
        if (instead) return await this.#shownInstead(instead);
        await this.taken();
        throw error;
      }
      let after: Promise<IteratorResult<StreamResponse>> | undefined;
      let refused: R | undefined;
      if (!first.done && isOpening(first.value)) {
        after = source.next();
        // Late (the agent is at work) or failed (the turn's own failure): shown, as it comes, after the opening.
        const second = await settlesWithin(after, OPENING_GRACE_MS).then(
          (inTime) => (inTime ? after : undefined),
          () => undefined,
        );
        refused = second && this.refusal(second);
      } else refused = this.refusal(first);
      if (refused !== undefined) {
        // Nothing of it is pushed either. Its stream is closed first: it holds the conversation's turn until it ends.
        await this.dropped();
        await source.return?.();
        return await this.#shownInstead(await this.again(refused));
      }
      await this.taken();
      this.#after = after;
      return first;
    } finally {
      this.#judging = undefined;
    }
  }

  #shownInstead(instead: AsyncIterable<StreamResponse>): Promise<IteratorResult<StreamResponse>> {
    const reading = instead[Symbol.asyncIterator]();
    this.#reading = reading;
    return reading.next();
  }
}

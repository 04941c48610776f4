import { Forwarder, returnThenDone } from '../../../core/iterable-stages.js';
import type { StreamResponse } from '../../../model/index.js';

/** How long, and until what, a turn followed past its bound is read on (unwatched-turns.ts boundSendTurn). */
export interface FollowBound {
  /** `upstream.first-event-timeout-ms`, from the bound on: an agent that says nothing at all is let go then (0: never). */
  ms: number;
  /** The gateway's shutdown: the call is no longer the caller's once answered, so its signal no longer follows it. */
  shutdown?: AbortSignal | undefined;
  /** The caller whose call it is: counted among the calls that outlive their caller (outliving-calls.ts). */
  principal: string;
}

/**
 * Where a turn's follow stands: its first event awaited (`first`), come (`passed`: the events pass through), or
 * followed past the bound (`following`) until its call is let go (`over`).
 */
const Stage = { first: 0, passed: 1, following: 2, over: 3 } as const;
type Stage = (typeof Stage)[keyof typeof Stage];

/**
 * A message/send turn whose bound passed before the agent's first event, its message sent as a new task's: the agent
 * may be at work on a task that has no id yet, which nothing could note (cut-turns.ts). Its caller is answered at the
 * bound (the reply reads `told` in place of the first event), and the upstream call is read on, unwatched, until
 * that first event: it names the task, which the turn's end notes as the hang-up of a caller who read nothing, and
 * the call is then ended as a hung-up caller's is (the agent goes on). The turn's end waits for that (`ended`), so the
 * conversation's lane is held, and its next message waits for the note (continuation.ts), until then.
 *
 * A turn whose caller hung up before that first event (unwatched-turns.ts TurnBound.callerGone) is followed the
 * same way, its reply ended with the hang-up's reason, which nobody reads.
 *
 * The events pass through untouched once the first one came: only a turn whose first event is still awaited is followed.
 * It is itself the reply's reader of the events, and past the first event a Forwarder: the stages of the reply read
 * the source through it. A turn that is not followed pays one object and its first read's promise, nothing per event
 * (the fifty-seventh pass priced the layer at 2.1 KB per facade send when it was an iterable, a reader and closures).
 */
export class FirstEventFollow extends Forwarder implements AsyncIterableIterator<StreamResponse> {
  #source: AsyncIterable<StreamResponse> | undefined;
  #iterator: AsyncIterator<StreamResponse> | undefined;
  #stage: Stage = Stage.first;
  /** The reply's read of the first event, under way. */
  #pending: Promise<IteratorResult<StreamResponse>> | undefined;
  #detach: ((told: unknown) => void) | undefined;
  #told: unknown;
  /** What waits for a followed call to be let go: made only for a followed turn. */
  #ends: (() => void)[] | undefined;

  /** `stop`: ends the upstream call (the call's abort). */
  constructor(private readonly stop: (reason: unknown) => void) {
    super();
  }

  /** The turn's events as its reply reads them: read through this follow, opened when the reply opens them. */
  events(source: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> {
    this.#source = source;
    return this;
  }

  /** The call is followed past the bound: nothing else ends it. */
  get following(): boolean {
    return this.#stage === Stage.following;
  }

  /** The reply awaits the turn's first event: the call can be followed past the bound. */
  get awaited(): boolean {
    return this.#pending !== undefined;
  }

  /**
   * The bound passed: the reply ends with `told` at once, and the call is read on until its first event, or `bound`.
   * `outlives`: the call's count among those that outlive their caller, let go when it ends: a shutdown's drain gives
   * it the drain time, then ends it (the upstream pool would otherwise wait for it at close).
   */
  follow(told: unknown, bound: FollowBound, outlives: () => void): void {
    const pending = this.#pending;
    const iterator = this.#iterator;
    if (!pending || !iterator) return outlives();
    this.#stage = Stage.following;
    this.#told = told;
    this.#ends ??= [];
    this.#detach?.(told);
    void this.#readOn(pending, iterator, bound).finally(outlives);
  }

  /** Runs `end` once the turn is over: at once, or, for a followed turn, once its call was let go. */
  ended(end: () => void): void {
    if (this.#stage === Stage.following) this.#ends!.push(end);
    else end();
  }

  forwardsTo(): AsyncIterator<StreamResponse> | undefined {
    return this.#stage === Stage.passed ? this.#iterator : undefined;
  }

  [Symbol.asyncIterator](): this {
    this.#iterator ??= this.#source![Symbol.asyncIterator]();
    return this;
  }

  next(): Promise<IteratorResult<StreamResponse>> {
    const stage = this.#stage;
    if (stage === Stage.passed) return this.#iterator!.next();
    if (stage !== Stage.first) return Promise.reject(this.#told);
    const pending = this.#iterator!.next();
    this.#pending = pending;
    return new Promise((resolve, reject) => {
      this.#detach = reject;
      pending.then(
        (result) => {
          this.#firstSettled();
          resolve(result);
        },
        (error: unknown) => {
          // Failed before any event: nothing left to follow.
          this.#firstSettled();
          reject(error);
        },
      );
    });
  }

  return(value?: unknown): Promise<IteratorResult<StreamResponse>> {
    // The reply's end does not end a call still followed: its read goes on (#readOn).
    if (this.#stage === Stage.following || this.#stage === Stage.over) return Promise.resolve({ done: true, value });
    return returnThenDone(this.#iterator);
  }

  /** The first read settled: nothing to follow from now on, nor any event to hold. */
  #firstSettled(): void {
    if (this.#stage === Stage.first) this.#stage = Stage.passed;
    this.#pending = undefined;
    this.#detach = undefined;
  }

  async #readOn(pending: Promise<IteratorResult<StreamResponse>>, iterator: AsyncIterator<StreamResponse>, bound: FollowBound): Promise<void> {
    const stop = (): void => this.stop(this.#told);
    const timer = bound.ms > 0 ? setTimeout(stop, bound.ms) : undefined;
    timer?.unref();
    const { shutdown } = bound;
    if (shutdown?.aborted) stop();
    else shutdown?.addEventListener('abort', stop, { once: true });
    try {
      // The first event is in (noted by the turn's tracker below), or the call ended without one.
      await pending;
      stop();
      // Read to the end the abort makes, so that every layer below lets go (the core, the context's lane).
      while (!(await iterator.next()).done);
    } catch {
      // The call ended: by the abort above, or failed on its own; nothing is waiting for it.
    } finally {
      clearTimeout(timer);
      shutdown?.removeEventListener('abort', stop);
      this.#stage = Stage.over;
      for (const end of this.#ends!.splice(0)) end();
    }
  }
}

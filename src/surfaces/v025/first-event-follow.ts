import { Forwarder } from '../../core/iterable-stages.js';
import type { StreamResponse } from '../../model/index.js';

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
 */
export class FirstEventFollow {
  #iterator: AsyncIterator<StreamResponse> | undefined;
  /** The reply's read of the first event, under way. */
  #pending: Promise<IteratorResult<StreamResponse>> | undefined;
  #detach: ((told: unknown) => void) | undefined;
  #firstRead = false;
  #told: unknown;
  #following = false;
  #over = false;
  readonly #ends: (() => void)[] = [];

  /** `stop`: ends the upstream call (the call's abort). */
  constructor(private readonly stop: (reason: unknown) => void) {}

  /** The turn's events as its reply reads them. */
  events(source: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> {
    return { [Symbol.asyncIterator]: () => this.#reader(source[Symbol.asyncIterator]()) };
  }

  /** The call is followed past the bound: nothing else ends it. */
  get following(): boolean {
    return this.#following && !this.#over;
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
    this.#following = true;
    this.#told = told;
    this.#detach?.(told);
    void this.#readOn(pending, iterator, bound).finally(outlives);
  }

  /** Runs `end` once the turn is over: at once, or, for a followed turn, once its call was let go. */
  ended(end: () => void): void {
    if (this.#following && !this.#over) this.#ends.push(end);
    else end();
  }

  #reader(iterator: AsyncIterator<StreamResponse>): AsyncIterator<StreamResponse> {
    this.#iterator = iterator;
    return new FirstEventReader(iterator, {
      forwards: () => this.#firstRead && !this.#following,
      next: () => {
        if (this.#following) return Promise.reject(this.#told);
        if (this.#firstRead) return iterator.next();
        const pending = iterator.next();
        this.#pending = pending;
        return new Promise((resolve, reject) => {
          this.#detach = reject;
          pending.then(
            (result) => {
              this.#firstRead = true;
              this.#letGoOfRead();
              resolve(result);
            },
            (error: unknown) => {
              // Failed before any event: nothing left to follow.
              this.#firstRead = true;
              this.#letGoOfRead();
              reject(error);
            },
          );
        });
      },
      // The reply's end does not end a call still followed: its read goes on below.
      return: async (value?: unknown) => (this.#following ? { done: true, value } : ((await iterator.return?.(value)) ?? { done: true, value })),
    });
  }

  /** The first read settled: nothing to follow from now on, nor any event to hold. */
  #letGoOfRead(): void {
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
      this.#over = true;
      for (const end of this.#ends.splice(0)) end();
    }
  }
}

interface FirstEventReads {
  /** Past the first event, and not followed: a read is the source's read as it is. */
  forwards(): boolean;
  next(): Promise<IteratorResult<StreamResponse>>;
  return(value?: unknown): Promise<IteratorResult<StreamResponse>>;
}

/**
 * The reply's reader of a turn's events: past the first event it only hands on the source's reads, so the stages of
 * the reply read the source through it (a Forwarder), adding no promise per event to a facade stream.
 */
class FirstEventReader extends Forwarder implements AsyncIterableIterator<StreamResponse> {
  constructor(
    private readonly source: AsyncIterator<StreamResponse>,
    private readonly reads: FirstEventReads,
  ) {
    super();
  }

  forwardsTo(): AsyncIterator<StreamResponse> | undefined {
    return this.reads.forwards() ? this.source : undefined;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamResponse>> {
    return this.reads.next();
  }

  return(value?: unknown): Promise<IteratorResult<StreamResponse>> {
    return this.reads.return(value);
  }
}

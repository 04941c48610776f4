/**
 * A layer that was an async generator over its source (a `for await` with its `yield`s, a `finally`), as a Stage: a
 * run of such layers over the upstream's stream is read in one reaction per event, not a resume, a yield and some
 * five promises per layer. It keeps what the generator did: its source is opened on the first read and returned at the
 * end (unless it ended or failed by itself), the items one source item makes are handed on one per read, a failure may
 * be answered with items (a generator's `catch`), and `return()` during a read waits for that read, as a generator's
 * queues behind it.
 */
import { DONE, Stage } from './iterable-stages.js';

/** What a step makes of one read of the source. */
export interface Step<U> {
  /** Handed on one per read; none: the source is read again, unless the stream ends. */
  readonly items: readonly U[];
  /** The stream ends once they are handed on: the source is returned (if it still runs), then every read is done. */
  readonly end?: boolean;
  /** What the stream makes next, once they are handed on, instead of reading the source (a generator's code after its `yield`s). */
  readonly after?: () => Step<U>;
}

const NONE: readonly never[] = [];

export abstract class SteppedStage<S, U> extends Stage<S, U> {
  #source: AsyncIterator<S> | undefined;
  /** The source has neither ended nor failed: at the stream's end it is returned. */
  #live = false;
  #queued: readonly U[] = NONE;
  #at = 0;
  /** Once the queue is handed on, what comes next instead of a read. */
  #after: (() => Step<U>) | undefined;
  /** Once the queue is handed on, the stream ends. */
  #ending = false;
  #ended: Promise<IteratorResult<U>> | undefined;
  /** A read is in flight: from the source's read to what it hands on. */
  #reading = false;
  #readSettled: { promise: Promise<void>; resolve(): void } | undefined;

  /** The source, opened on the stream's first read (a generator's body runs on its first `next()`). */
  protected abstract open(): AsyncIterator<S>;
  /** What an item of the source, or its end, makes; what it throws fails the stream (the source returned first). */
  protected abstract step(result: IteratorResult<S>): Step<U> | Promise<Step<U>>;
  /** What the source's failure makes (a generator's `catch`, its `end` said), the source no longer read; by default the stream fails with it. */
  protected recover(error: unknown): Step<U> | Promise<Step<U>> {
    throw error;
  }
  /** The stream's end, however it came, once the source is returned (a generator's `finally`); not when it was never read. */
  protected finish(): void {}

  /** From now on the stream reads `source` (what a generator's later loop reads), the one before ended or returned. */
  protected continueWith(source: AsyncIterator<S>): void {
    this.#source = source;
    this.#live = true;
  }

  next(): Promise<IteratorResult<U>> {
    if (this.#at < this.#queued.length) return Promise.resolve({ done: false, value: this.#take() });
    if (this.#ended) return this.#ended;
    if (this.#ending) return this.#end();
    const after = this.#after;
    if (!after) return this.read();
    this.#after = undefined;
    return Promise.resolve(this.#hand({ items: [], after }));
  }

  return(): Promise<IteratorResult<U>> {
    return this.#reading ? this.#returnAfterRead() : this.#returned();
  }

  async #returnAfterRead(): Promise<IteratorResult<U>> {
    if (!this.#readSettled) {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => (resolve = settle));
      this.#readSettled = { promise, resolve };
    }
    await this.#readSettled.promise;
    return this.#returned();
  }

  #returned(): Promise<IteratorResult<U>> {
    this.#queued = NONE;
    this.#at = 0;
    this.#after = undefined;
    // Never read: nothing was opened, and a generator returned before it started runs no `finally`.
    if (!this.#source) this.#ended ??= Promise.resolve(DONE);
    return this.#end();
  }

  protected source(): AsyncIterator<S> {
    this.#reading = true;
    if (this.#source) return this.#source;
    this.#live = true;
    return (this.#source = this.open());
  }

  protected passable(): boolean {
    return this.#at >= this.#queued.length && !this.#after && !this.#ending && !this.#ended;
  }

  protected seen(result: IteratorResult<S>): IteratorResult<U> | Promise<IteratorResult<U>> {
    if (result.done) this.#live = false;
    let step: Step<U> | Promise<Step<U>>;
    try {
      step = this.step(result);
    } catch (error) {
      return this.#failWith(error);
    }
    return step instanceof Promise
      ? step.then(
          (made) => this.#hand(made),
          (error: unknown) => this.#failWith(error),
        )
      : this.#hand(step);
  }

  protected failed(error: unknown): Promise<IteratorResult<U>> {
    this.#live = false;
    let step: Step<U> | Promise<Step<U>>;
    try {
      step = this.recover(error);
    } catch (failure) {
      return this.#failWith(failure);
    }
    return Promise.resolve(step).then(
      (made) => this.#hand(made),
      (failure: unknown) => this.#failWith(failure),
    );
  }

  #hand(step: Step<U>): IteratorResult<U> | Promise<IteratorResult<U>> {
    if (step.end) this.#ending = true;
    if (step.items.length === 0) {
      if (!step.after) return this.#ending ? this.#end() : this.read();
      let next: Step<U>;
      try {
        next = step.after();
      } catch (error) {
        return this.#failWith(error);
      }
      return this.#hand(next);
    }
    this.#after = step.after;
    this.#settled();
    if (step.items.length > 1) {
      this.#queued = step.items;
      this.#at = 1;
    }
    return { done: false, value: step.items[0] as U };
  }

  #take(): U {
    const value = this.#queued[this.#at++] as U;
    if (this.#at >= this.#queued.length) {
      this.#queued = NONE;
      this.#at = 0;
    }
    return value;
  }

  /** As a generator's `finally` runs before what its body threw reaches the reader. */
  #failWith(error: unknown): Promise<never> {
    this.#ending = true;
    return this.#end().then(() => Promise.reject(error));
  }

  /** The end, once: the source returned if it still runs, then `finish`; every read after it is done. */
  #end(): Promise<IteratorResult<U>> {
    this.#settled();
    return (this.#ended ??= this.#close());
  }

  async #close(): Promise<IteratorResult<U>> {
    const source = this.#source;
    if (source && this.#live) {
      this.#live = false;
      await Promise.resolve(source.return?.()).catch(() => undefined);
    }
    this.finish();
    return DONE;
  }

  #settled(): void {
    this.#reading = false;
    const waiting = this.#readSettled;
    if (!waiting) return;
    this.#readSettled = undefined;
    waiting.resolve();
  }
}

class FromSync<T> implements AsyncIterator<T> {
  constructor(private readonly items: Iterator<T>) {}

  next(): Promise<IteratorResult<T>> {
    return Promise.resolve(this.items.next());
  }

  return(): Promise<IteratorResult<T>> {
    this.items.return?.();
    return Promise.resolve(DONE);
  }
}

/** Either kind of iterable read as `for await` reads it (its items are no promises: events, not a sync list of reads). */
export function asyncIteratorOf<T>(iterable: AsyncIterable<T> | Iterable<T>): AsyncIterator<T> {
  return Symbol.asyncIterator in iterable ? iterable[Symbol.asyncIterator]() : new FromSync(iterable[Symbol.iterator]());
}

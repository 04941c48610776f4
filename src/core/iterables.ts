/**
 * Pass-through layers for event streams, as plain iterators: every decorator and edge that only maps or
 * observes events uses these rather than an async generator. A generator costs a suspended frame and
 * three promises per event and layer (measured: ten layers of `for await … yield` add 3.5 µs per event,
 * ten of these 1 µs), and it queues a `return()` behind a pending `next()`, where these forward it at once.
 * They are classes, so an idle stream holds one small object per layer rather than a set of closures.
 */

import { DONE, returnThenDone, settledThenDone, Stage } from './iterable-stages.js';

export { deferIterable, headThenRest, reshapeFirst } from './iterable-forwarders.js';

class Mapped<T, U> extends Stage<T, U> {
  readonly #source: AsyncIterator<T>;
  readonly #map: (item: T) => U;

  constructor(source: AsyncIterator<T>, map: (item: T) => U) {
    super();
    this.#source = source;
    this.#map = map;
  }

  next(): Promise<IteratorResult<U>> {
    return this.read();
  }

  protected source(): AsyncIterator<T> {
    return this.#source;
  }

  protected passable(): boolean {
    return true;
  }

  protected seen(result: IteratorResult<T>): IteratorResult<U> | Promise<IteratorResult<U>> {
    if (result.done) return DONE;
    try {
      return { done: false, value: this.#map(result.value) };
    } catch (error) {
      // As a generator's for-await does when its body throws: the source is returned first.
      return this.#mapFailed(error);
    }
  }

  protected failed(error: unknown): Promise<never> {
    return Promise.reject(error);
  }

  async #mapFailed(error: unknown): Promise<never> {
    await Promise.resolve(this.#source.return?.()).catch(() => undefined);
    throw error;
  }

  return(): Promise<IteratorResult<U>> {
    return returnThenDone(this.#source);
  }
}

/** Maps each item; `return()` is forwarded at once. */
export function mapIterable<T, U>(iterable: AsyncIterable<T>, map: (item: T) => U): AsyncIterable<U> {
  return { [Symbol.asyncIterator]: () => new Mapped(iterable[Symbol.asyncIterator](), map) };
}

export interface Tap<T> {
  /**
   * Sees each item before it is handed on; when it returns a promise, the item waits for it. What it
   * throws or rejects with fails the stream (and returns the source).
   */
  item?(item: T): Promise<unknown> | void;
  /**
   * Whether an item is the stream's last: once it is handed on, the next read ends the stream as if the
   * source had (the source is returned, then `end('done')`), whatever the source would still send.
   */
  last?(item: T): boolean;
  /**
   * Called once when the stream ends (see TapEnd), with what it `failed` with. The stream ends after it
   * settles, as it would after a generator's `finally`.
   */
  end?(how: TapEnd, error?: unknown): Promise<unknown> | void;
}

/**
 * How a tapped stream ended: its source finished, something failed (the source or `item`), its reader
 * returned it, or its reader returned it before reading anything (the source was never opened).
 */
export type TapEnd = 'done' | 'failed' | 'returned' | 'unread';

class Tapped<T> extends Stage<T, T> {
  readonly #iterable: AsyncIterable<T>;
  readonly #tap: Tap<T>;
  #source: AsyncIterator<T> | undefined;
  #ended = false;
  #sawLast = false;

  constructor(iterable: AsyncIterable<T>, tap: Tap<T>) {
    super();
    this.#iterable = iterable;
    this.#tap = tap;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#ended) return Promise.resolve(DONE);
    if (this.#sawLast) return this.#endAfterLast();
    return this.read();
  }

  protected source(): AsyncIterator<T> {
    return (this.#source ??= this.#iterable[Symbol.asyncIterator]());
  }

  protected passable(): boolean {
    return !this.#ended && !this.#sawLast;
  }

  /** Every layer's end runs this once per stream: `then`s rather than an async function's frame and `finally`. */
  return(): Promise<IteratorResult<T>> {
    // Nothing was read, so the source was never opened; what the tap holds still ends.
    if (!this.#source) return this.#endThenDone('unread');
    if (this.#ended) return Promise.resolve(DONE);
    let returned: unknown;
    try {
      returned = this.#source.return?.();
    } catch (error) {
      return this.#endThenThrow('returned', error);
    }
    if (returned === undefined) return this.#endThenDone('returned');
    return Promise.resolve(returned).then(
      () => this.#endThenDone('returned'),
      (error: unknown) => this.#endThenThrow('returned', error),
    );
  }

  protected seen(result: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> {
    if (result.done) return this.#endThenDone('done');
    // An item that was on its way when the reader returned the stream is not shown any more.
    if (this.#ended) return result;
    let seen: Promise<unknown> | void;
    try {
      seen = this.#tap.item?.(result.value);
      if (this.#tap.last?.(result.value)) this.#sawLast = true;
    } catch (error) {
      return this.#itemFailed(error);
    }
    // The common case stays synchronous: no extra promise per item, nor a context for the other's closures.
    return seen ? this.#afterItem(seen, result) : result;
  }

  #afterItem(seen: Promise<unknown>, result: IteratorResult<T>): Promise<IteratorResult<T>> {
    return seen.then(
      () => result,
      (error: unknown) => this.#itemFailed(error),
    );
  }

  async #endAfterLast(): Promise<IteratorResult<T>> {
    await Promise.resolve(this.#source?.return?.()).catch(() => undefined);
    await this.#end('done');
    return DONE;
  }

  protected failed(error: unknown): Promise<never> {
    return this.#endThenThrow('failed', error, error);
  }

  /** As a generator's for-await does when its body throws: the source is returned first. */
  async #itemFailed(error: unknown): Promise<never> {
    await Promise.resolve(this.#source?.return?.()).catch(() => undefined);
    return this.failed(error);
  }

  /** `await this.#end(how); return DONE;`: what `end` throws or rejects with rejects. */
  #endThenDone(how: TapEnd): Promise<IteratorReturnResult<undefined>> {
    let ending: unknown;
    try {
      ending = this.#end(how);
    } catch (error) {
      return Promise.reject(error);
    }
    return settledThenDone(ending);
  }

  /** `try { throw thrown } finally { await this.#end(how, error) }`: what `end` throws or rejects with wins. */
  #endThenThrow(how: TapEnd, thrown: unknown, error?: unknown): Promise<never> {
    let ending: unknown;
    try {
      ending = this.#end(how, error);
    } catch (endError) {
      return Promise.reject(endError);
    }
    if (ending === undefined) return Promise.reject(thrown);
    return Promise.resolve(ending).then(() => Promise.reject(thrown));
  }

  /** What `tap.end` returns, awaited by the caller: not an async function of its own, whose frame each layer's end would allocate. */
  #end(how: TapEnd, error?: unknown): Promise<unknown> | void {
    if (this.#ended) return;
    this.#ended = true;
    return this.#tap.end?.(how, error);
  }
}

/**
 * Items handed on unchanged, each shown to `tap.item`, and `tap.end` once at the end: a generator's
 * `for await` and `finally`, without the generator.
 */
export function tapIterable<T>(iterable: AsyncIterable<T>, tap: Tap<T>): AsyncIterableIterator<T> {
  return new Tapped(iterable, tap);
}

/**
 * Pass-through layers for event streams, as plain iterators: every decorator and edge that only maps or
 * observes events uses these rather than an async generator. A generator costs a suspended frame and
 * three promises per event and layer (measured: ten layers of `for await … yield` add 3.5 µs per event,
 * ten of these 1 µs), and it queues a `return()` behind a pending `next()`, where these forward it at once.
 * They are classes, so an idle stream holds one small object per layer rather than a set of closures.
 */

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class Mapped<T, U> implements AsyncIterableIterator<U> {
  readonly #source: AsyncIterator<T>;
  readonly #map: (item: T) => U;

  constructor(source: AsyncIterator<T>, map: (item: T) => U) {
    this.#source = source;
    this.#map = map;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<U>> {
    // then(), not an async function: a waiting stream keeps no suspended frame here.
    return this.#source.next().then((result) => {
      if (result.done) return DONE;
      try {
        return { done: false, value: this.#map(result.value) };
      } catch (error) {
        // As a generator's for-await does when its body throws: the source is returned first.
        return this.#mapFailed(error);
      }
    });
  }

  async #mapFailed(error: unknown): Promise<never> {
    await Promise.resolve(this.#source.return?.()).catch(() => undefined);
    throw error;
  }

  async return(): Promise<IteratorResult<U>> {
    await this.#source.return?.();
    return DONE;
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
   * Called once when the stream ends (see TapEnd). The stream ends after it settles, as it would
   * after a generator's `finally`.
   */
  end?(how: TapEnd): Promise<unknown> | void;
}

/**
 * How a tapped stream ended: its source finished, something failed (the source or `item`), its reader
 * returned it, or its reader returned it before reading anything (the source was never opened).
 */
export type TapEnd = 'done' | 'failed' | 'returned' | 'unread';

class Tapped<T> implements AsyncIterableIterator<T> {
  readonly #iterable: AsyncIterable<T>;
  readonly #tap: Tap<T>;
  #source: AsyncIterator<T> | undefined;
  #ended = false;
  #sawLast = false;

  constructor(iterable: AsyncIterable<T>, tap: Tap<T>) {
    this.#iterable = iterable;
    this.#tap = tap;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#ended) return Promise.resolve(DONE);
    if (this.#sawLast) return this.#endAfterLast();
    this.#source ??= this.#iterable[Symbol.asyncIterator]();
    // One closure per pending read, none per layer: an idle stream holds one read per layer.
    return this.#source.next().then(
      (result) => this.#seen(result),
      (error: unknown) => this.#failed(error),
    );
  }

  async return(): Promise<IteratorResult<T>> {
    if (!this.#source) {
      // Nothing was read, so the source was never opened; what the tap holds still ends.
      await this.#end('unread');
    } else if (!this.#ended) {
      try {
        await this.#source.return?.();
      } finally {
        await this.#end('returned');
      }
    }
    return DONE;
  }

  #seen(result: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> {
    if (result.done) return this.#end('done').then(() => DONE);
    // An item that was on its way when the reader returned the stream is not shown any more.
    if (this.#ended) return result;
    let seen: Promise<unknown> | void;
    try {
      seen = this.#tap.item?.(result.value);
      if (this.#tap.last?.(result.value)) this.#sawLast = true;
    } catch (error) {
      return this.#itemFailed(error);
    }
    // The common case stays synchronous: no extra promise per item.
    return seen
      ? seen.then(
          () => result,
          (error: unknown) => this.#itemFailed(error),
        )
      : result;
  }

  async #endAfterLast(): Promise<IteratorResult<T>> {
    await Promise.resolve(this.#source?.return?.()).catch(() => undefined);
    await this.#end('done');
    return DONE;
  }

  async #failed(error: unknown): Promise<never> {
    await this.#end('failed');
    throw error;
  }

  /** As a generator's for-await does when its body throws: the source is returned first. */
  async #itemFailed(error: unknown): Promise<never> {
    await Promise.resolve(this.#source?.return?.()).catch(() => undefined);
    return this.#failed(error);
  }

  async #end(how: TapEnd): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.#tap.end?.(how);
  }
}

/**
 * Items handed on unchanged, each shown to `tap.item`, and `tap.end` once at the end: a generator's
 * `for await` and `finally`, without the generator.
 */
export function tapIterable<T>(iterable: AsyncIterable<T>, tap: Tap<T>): AsyncIterableIterator<T> {
  return new Tapped(iterable, tap);
}

class Deferred<T> implements AsyncIterableIterator<T> {
  /** Let go once the source is open (with `#opening`): an open stream keeps neither, nor what `open` holds. */
  #open: (() => AsyncIterable<T> | Promise<AsyncIterable<T>>) | undefined;
  #source: AsyncIterator<T> | undefined;
  #opening: Promise<AsyncIterator<T>> | undefined;
  #closed = false;

  constructor(open: () => AsyncIterable<T> | Promise<AsyncIterable<T>>) {
    this.#open = open;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#closed) return Promise.resolve(DONE);
    if (this.#source) return this.#source.next();
    return this.#opened().then((source) => source.next());
  }

  async return(): Promise<IteratorResult<T>> {
    this.#closed = true;
    const source = this.#source ?? (this.#opening ? await this.#opening.catch(() => undefined) : undefined);
    await source?.return?.();
    return DONE;
  }

  #opened(): Promise<AsyncIterator<T>> {
    const open = this.#open;
    if (this.#opening || !open) return this.#opening ?? Promise.resolve(this.#source!);
    this.#open = undefined;
    const opening = new Promise<AsyncIterable<T>>((resolve) => resolve(open())).then((iterable) => {
      this.#opening = undefined;
      return (this.#source = iterable[Symbol.asyncIterator]());
    });
    this.#opening = opening;
    return opening;
  }
}

/**
 * The iterable `open` gives, opened on the first read (as a generator body runs on its first `next()`,
 * so what `open` throws or rejects with is the stream's first error) and then read directly, without a
 * generator around each item. Returned before its first read, it opens nothing.
 */
export function deferIterable<T>(open: () => AsyncIterable<T> | Promise<AsyncIterable<T>>): AsyncIterableIterator<T> {
  return new Deferred(open);
}

class FirstReshaped<T> implements AsyncIterableIterator<T> {
  readonly #source: AsyncIterator<T>;
  readonly #reshape: (first: T) => readonly T[];
  #first = true;
  /** What the first item became, still to hand on before the source is read again. */
  #pending: T[] = [];

  constructor(source: AsyncIterator<T>, reshape: (first: T) => readonly T[]) {
    this.#source = source;
    this.#reshape = reshape;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    const pending = this.#pending.shift();
    if (pending !== undefined) return Promise.resolve({ done: false, value: pending });
    // Past the first item the source is read as it is: no map, no promise of this layer's own.
    if (!this.#first) return this.#source.next();
    return this.#source.next().then((result) => {
      if (result.done) return DONE;
      this.#first = false;
      let items: readonly T[];
      try {
        items = this.#reshape(result.value);
      } catch (error) {
        return this.#reshapeFailed(error);
      }
      const [lead, ...rest] = items;
      if (lead === undefined) return this.next();
      this.#pending = rest;
      return { done: false, value: lead };
    });
  }

  async #reshapeFailed(error: unknown): Promise<never> {
    await Promise.resolve(this.#source.return?.()).catch(() => undefined);
    throw error;
  }

  async return(): Promise<IteratorResult<T>> {
    this.#pending = [];
    await this.#source.return?.();
    return DONE;
  }
}

/**
 * The first item replaced by what `reshape` makes of it (none, itself, or more in its place), the rest handed on
 * unchanged, unlooked at: for a rule about how a stream opens, which costs the stream nothing after its first item.
 */
export function reshapeFirst<T>(iterable: AsyncIterable<T>, reshape: (first: T) => readonly T[]): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => new FirstReshaped(iterable[Symbol.asyncIterator](), reshape) };
}

/**
 * Pass-through layers for event streams, as plain iterators: every decorator and edge that only maps or
 * observes events uses these rather than an async generator. A generator costs a suspended frame and
 * three promises per event and layer (measured: ten layers of `for await … yield` add 3.5 µs per event,
 * ten of these 1 µs), and it queues a `return()` behind a pending `next()`, where these forward it at once.
 */

/** Maps each item; `return()` is forwarded at once. */
export function mapIterable<T, U>(iterable: AsyncIterable<T>, map: (item: T) => U): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator]: () => {
      const iterator = iterable[Symbol.asyncIterator]();
      return {
        // then(), not an async function: a waiting stream keeps no suspended frame here.
        next: () =>
          iterator
            .next()
            .then((result): IteratorResult<U> => (result.done ? { done: true, value: undefined } : { done: false, value: map(result.value) })),
        return: async () => {
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

export interface Tap<T> {
  /**
   * Sees each item before it is handed on; when it returns a promise, the item waits for it. What it
   * throws or rejects with fails the stream (and returns the source).
   */
  item?(item: T): Promise<unknown> | void;
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

/**
 * Items handed on unchanged, each shown to `tap.item`, and `tap.end` once at the end: a generator's
 * `for await` and `finally`, without the generator.
 */
export function tapIterable<T>(iterable: AsyncIterable<T>, tap: Tap<T>): AsyncIterableIterator<T> {
  let iterator: AsyncIterator<T> | undefined;
  let ended = false;
  const source = (): AsyncIterator<T> => (iterator ??= iterable[Symbol.asyncIterator]());
  const end = async (how: TapEnd): Promise<void> => {
    if (ended) return;
    ended = true;
    await tap.end?.(how);
  };
  const failed = async (error: unknown): Promise<never> => {
    await end('failed');
    throw error;
  };
  // As a generator's for-await does when its body throws: the source is returned first.
  const itemFailed = (error: unknown): Promise<never> =>
    Promise.resolve(iterator?.return?.())
      .catch(() => undefined)
      .then(() => failed(error));
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const tapped: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => tapped,
    next: () => {
      if (ended) return Promise.resolve(done);
      return source()
        .next()
        .then((result): IteratorResult<T> | Promise<IteratorResult<T>> => {
          if (result.done) return end('done').then(() => done);
          // An item that was on its way when the reader returned the stream is not shown any more.
          if (ended) return result;
          let seen: Promise<unknown> | void;
          try {
            seen = tap.item?.(result.value);
          } catch (error) {
            return itemFailed(error);
          }
          // The common case stays synchronous: no extra promise per item.
          return seen ? seen.then(() => result, itemFailed) : result;
        }, failed);
    },
    return: async () => {
      if (!iterator) {
        // Nothing was read, so the source was never opened; what the tap holds still ends.
        await end('unread');
        return done;
      }
      if (!ended) {
        try {
          await iterator?.return?.();
        } finally {
          await end('returned');
        }
      }
      return done;
    },
  };
  return tapped;
}

/**
 * The iterable `open` gives, opened on the first read (as a generator body runs on its first `next()`,
 * so what `open` throws or rejects with is the stream's first error) and then read directly, without a
 * generator around each item. Returned before its first read, it opens nothing.
 */
export function deferIterable<T>(open: () => AsyncIterable<T> | Promise<AsyncIterable<T>>): AsyncIterableIterator<T> {
  let iterator: AsyncIterator<T> | undefined;
  let opening: Promise<AsyncIterator<T>> | undefined;
  let closed = false;
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const opened = (): Promise<AsyncIterator<T>> =>
    (opening ??= new Promise<AsyncIterable<T>>((resolve) => resolve(open())).then((iterable) => (iterator = iterable[Symbol.asyncIterator]())));
  const deferred: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => deferred,
    next: () => {
      if (closed) return Promise.resolve(done);
      return iterator ? iterator.next() : opened().then((source) => source.next());
    },
    return: async () => {
      closed = true;
      const source = iterator ?? (opening ? await opening.catch(() => undefined) : undefined);
      await source?.return?.();
      return done;
    },
  };
  return deferred;
}

/**
 * Like the core's mapIterable (src/core/iterables.ts), but each item may become several, sent in order:
 * a plain iterator rather than an async generator, for the same reasons (no suspended frame per event,
 * `return()` forwarded at once).
 */

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class Expanded<T, U> implements AsyncIterableIterator<U> {
  readonly #source: AsyncIterator<T>;
  readonly #expand: (item: T) => readonly U[];
  #queued: readonly U[] = [];
  #at = 0;

  constructor(source: AsyncIterator<T>, expand: (item: T) => readonly U[]) {
    this.#source = source;
    this.#expand = expand;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<U>> {
    if (this.#at < this.#queued.length) return Promise.resolve({ done: false, value: this.#queued[this.#at++]! });
    return this.#source.next().then((result) => {
      if (result.done) return DONE;
      try {
        this.#queued = this.#expand(result.value);
        this.#at = 0;
      } catch (error) {
        return this.#expandFailed(error);
      }
      return this.next();
    });
  }

  async #expandFailed(error: unknown): Promise<never> {
    await Promise.resolve(this.#source.return?.()).catch(() => undefined);
    throw error;
  }

  async return(): Promise<IteratorResult<U>> {
    this.#queued = [];
    await this.#source.return?.();
    return DONE;
  }
}

/** Each item as the items `expand` makes of it (none, one or several); `return()` is forwarded at once. */
export function expandIterable<T, U>(iterable: AsyncIterable<T>, expand: (item: T) => readonly U[]): AsyncIterable<U> {
  return { [Symbol.asyncIterator]: () => new Expanded(iterable[Symbol.asyncIterator](), expand) };
}

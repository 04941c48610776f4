/**
 * What the pass-through layers of iterables.ts share: a run of them is read in one reaction (Stage), and a layer that
 * only hands on its source's reads once past its start (Forwarder) is read through.
 */

export const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

const toDone = (): IteratorReturnResult<undefined> => DONE;

/**
 * `await iterator.return?.(); return DONE;` without an async function's frame: a send's end runs `return()` down some
 * ten layers. What `return` throws rejects, as it would in an async function.
 */
export function returnThenDone(iterator: AsyncIterator<unknown> | undefined): Promise<IteratorReturnResult<undefined>> {
  let returned: unknown;
  try {
    returned = iterator?.return?.();
  } catch (error) {
    return Promise.reject(error);
  }
  return settledThenDone(returned);
}

/** `await settling; return DONE;` without an async function's frame: nothing to wait for is done at once. */
export function settledThenDone(settling: unknown): Promise<IteratorReturnResult<undefined>> {
  return settling === undefined ? Promise.resolve(DONE) : Promise.resolve(settling).then(toDone);
}

/**
 * A layer whose read, once it is past its start (an opened Deferred, a FirstReshaped past its first item), is only its
 * source's read: a Stage above reads its source directly.
 */
export abstract class Forwarder {
  /** The iterator whose next() this one's next() now returns as it is, if it does. */
  abstract forwardsTo(): AsyncIterator<unknown> | undefined;
}

const forwardedTo = (iterator: AsyncIterator<unknown>): AsyncIterator<unknown> | undefined =>
  iterator instanceof Forwarder ? iterator.forwardsTo() : undefined;

/**
 * A pass-through layer (Mapped, Tapped) that the layer above it may read through: a run of such layers reads the
 * source below the run once and hands its result up the run in one reaction, not one promise, two closures and a
 * microtask per layer (a relayed stream goes through some ten of them). Each layer still sees what its own source
 * handed on, in the same order; a layer that waits (a tap's promise, a stream's end) makes the layers above it wait.
 */
export abstract class Stage<S, U> implements AsyncIterableIterator<U> {
  /** The stage below that the read in flight goes through, if any. */
  #via: Stage<unknown, S> | undefined;

  /** This stage's source, opened if it was not. */
  protected abstract source(): AsyncIterator<S>;
  /** Whether a read of this stage is now its source's read with `seen` applied, so a stage above may read through it. */
  protected abstract passable(): boolean;
  /** What this stage hands on of its source's result. */
  protected abstract seen(result: IteratorResult<S>): IteratorResult<U> | Promise<IteratorResult<U>>;
  /**
   * What this stage does with its source's failure: the promise rejects with what it hands on, or resolves with what
   * it hands on instead (a stage that answers a failure with items of its own, stepped-stages.ts).
   */
  protected abstract failed(error: unknown): Promise<IteratorResult<U>>;

  abstract next(): Promise<IteratorResult<U>>;

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** One read of the source below the run of passable stages under this one, seen by each, innermost first. */
  protected read(): Promise<IteratorResult<U>> {
    // then(), not an async function: a waiting stream keeps no suspended frame here.
    return this.#readied()
      .next()
      .then(
        (result) => this.#through(result),
        (error: unknown) => this.#fail(error),
      );
  }

  /** Marks the run of passable stages below for this read; the iterator under the run. */
  #readied(): AsyncIterator<unknown> {
    let source: AsyncIterator<unknown> = this.source();
    for (let to = forwardedTo(source); to; to = forwardedTo(source)) source = to;
    if (source instanceof Stage && source.passable()) {
      this.#via = source as Stage<unknown, S>;
      return source.#readied();
    }
    this.#via = undefined;
    return source;
  }

  #through(result: IteratorResult<unknown>): IteratorResult<U> | Promise<IteratorResult<U>> {
    const via = this.#via;
    if (!via) return this.seen(result as IteratorResult<S>);
    let below: IteratorResult<S> | Promise<IteratorResult<S>>;
    try {
      below = via.#through(result);
    } catch (error) {
      return this.failed(error);
    }
    // The closures in a method of their own: here they would cost a context per call, though most pass synchronously.
    return below instanceof Promise ? this.#seenLater(below) : this.seen(below);
  }

  #seenLater(below: Promise<IteratorResult<S>>): Promise<IteratorResult<U>> {
    return below.then(
      (seen) => this.seen(seen),
      (error: unknown) => this.failed(error),
    );
  }

  #fail(error: unknown): Promise<IteratorResult<U>> {
    const via = this.#via;
    if (!via) return this.failed(error);
    // A stage below that answered the failure with an item hands it up the run as any item.
    return via.#fail(error).then(
      (result) => this.#seenOrFailed(result),
      (failure: unknown) => this.failed(failure),
    );
  }

  #seenOrFailed(result: IteratorResult<S>): IteratorResult<U> | Promise<IteratorResult<U>> {
    try {
      return this.seen(result);
    } catch (error) {
      return this.failed(error);
    }
  }
}

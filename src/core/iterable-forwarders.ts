/** The pass-through layers of iterables.ts that step aside once past their start: a Stage above reads their source itself. */
import { DONE, Forwarder, returnThenDone } from './iterable-stages.js';

class Deferred<T> extends Forwarder implements AsyncIterableIterator<T> {
  /** Let go once the source is open (with `#opening`): an open stream keeps neither, nor what `open` holds. */
  #open: (() => AsyncIterable<T> | Promise<AsyncIterable<T>>) | undefined;
  #source: AsyncIterator<T> | undefined;
  #opening: Promise<AsyncIterator<T>> | undefined;
  #closed = false;

  constructor(open: () => AsyncIterable<T> | Promise<AsyncIterable<T>>) {
    super();
    this.#open = open;
  }

  forwardsTo(): AsyncIterator<T> | undefined {
    return this.#closed ? undefined : this.#source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#closed) return Promise.resolve(DONE);
    if (this.#source) return this.#source.next();
    return this.#opened().then((source) => source.next());
  }

  return(): Promise<IteratorResult<T>> {
    this.#closed = true;
    if (this.#source || !this.#opening) return returnThenDone(this.#source);
    return this.#opening.then(returnThenDone, () => DONE);
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

class FirstReshaped<T> extends Forwarder implements AsyncIterableIterator<T> {
  readonly #source: AsyncIterator<T>;
  readonly #reshape: (first: T) => readonly T[];
  #first = true;
  /** What the first item became, still to hand on before the source is read again. */
  #pending: T[] = [];

  constructor(source: AsyncIterator<T>, reshape: (first: T) => readonly T[]) {
    super();
    this.#source = source;
    this.#reshape = reshape;
  }

  forwardsTo(): AsyncIterator<T> | undefined {
    return this.#first || this.#pending.length > 0 ? undefined : this.#source;
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

  return(): Promise<IteratorResult<T>> {
    this.#pending = [];
    return returnThenDone(this.#source);
  }
}

/**
 * The first item replaced by what `reshape` makes of it (none, itself, or more in its place), the rest handed on
 * unchanged, unlooked at: for a rule about how a stream opens, which costs the stream nothing after its first item.
 */
export function reshapeFirst<T>(iterable: AsyncIterable<T>, reshape: (first: T) => readonly T[]): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => new FirstReshaped(iterable[Symbol.asyncIterator](), reshape) };
}

class HeadThenRest<T> extends Forwarder implements AsyncIterableIterator<T> {
  #head: Promise<IteratorResult<T>> | undefined;
  readonly #source: AsyncIterator<T>;
  readonly #returned: () => void;

  constructor(head: Promise<IteratorResult<T>>, source: AsyncIterator<T>, returned: () => void) {
    super();
    this.#head = head;
    this.#source = source;
    this.#returned = returned;
  }

  forwardsTo(): AsyncIterator<T> | undefined {
    return this.#head ? undefined : this.#source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    const head = this.#head;
    if (!head) return this.#source.next();
    this.#head = undefined;
    return head;
  }

  return(): Promise<IteratorResult<T>> {
    try {
      this.#returned();
      this.#head = undefined;
      return this.#source.return ? this.#source.return() : Promise.resolve(DONE);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/**
 * `head` (a first read of `source` already made), then `source` read directly; `returned` is told when it is
 * returned, before the source is. Past its head a layer above reads the source itself, as if this were not there.
 */
export function headThenRest<T>(head: Promise<IteratorResult<T>>, source: AsyncIterator<T>, returned: () => void): AsyncIterableIterator<T> {
  return new HeadThenRest(head, source, returned);
}

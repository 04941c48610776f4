import { createHook } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { deferIterable, headThenRest, mapIterable, reshapeFirst, tapIterable, type TapEnd } from '../../src/core/iterables.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A source that records what its reader did to it. */
function source(items: number[], options: { failAfter?: number } = {}) {
  const log: string[] = [];
  async function* generate(): AsyncGenerator<number> {
    try {
      for (const [index, item] of items.entries()) {
        if (options.failAfter === index) throw new Error('source broke');
        yield item;
      }
    } finally {
      log.push('source finally');
    }
  }
  return { iterable: generate(), log };
}

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of iterable) seen.push(item);
  return seen;
}

describe('tapIterable', () => {
  it('hands every item on unchanged, shows each to item(), and ends once with done', async () => {
    const { iterable } = source([1, 2, 3]);
    const shown: number[] = [];
    const ends: TapEnd[] = [];
    const tapped = tapIterable(iterable, { item: (n) => void shown.push(n), end: (how) => void ends.push(how) });
    expect(await drain(tapped)).toEqual([1, 2, 3]);
    expect(shown).toEqual([1, 2, 3]);
    expect(ends).toEqual(['done']);
    expect(await tapped.next()).toEqual({ done: true, value: undefined });
    expect(ends).toEqual(['done']);
  });

  it('ends after the item last() names, returning the source, and ends with done', async () => {
    const { iterable, log } = source([1, 2, 3, 4]);
    const ends: TapEnd[] = [];
    const tapped = tapIterable(iterable, { last: (n) => n === 2, end: (how) => void ends.push(how) });
    expect(await drain(tapped)).toEqual([1, 2]);
    expect(log).toEqual(['source finally']);
    expect(ends).toEqual(['done']);
  });

  it("passes a source's failure on after end('failed')", async () => {
    const { iterable } = source([1, 2, 3], { failAfter: 1 });
    const ends: TapEnd[] = [];
    await expect(drain(tapIterable(iterable, { end: (how) => void ends.push(how) }))).rejects.toThrow('source broke');
    expect(ends).toEqual(['failed']);
  });

  it('returns the source when item() throws, then fails with that error', async () => {
    const { iterable, log } = source([1, 2, 3]);
    const ends: TapEnd[] = [];
    const tapped = tapIterable(iterable, {
      item: (n) => {
        if (n === 2) throw new Error('observer broke');
      },
      end: (how) => void ends.push(how),
    });
    await expect(drain(tapped)).rejects.toThrow('observer broke');
    expect(log).toEqual(['source finally']);
    expect(ends).toEqual(['failed']);
  });

  it('forwards an early return to the source and ends with returned, after the source closed', async () => {
    const { iterable, log } = source([1, 2, 3]);
    const order: string[] = log;
    const tapped = tapIterable(iterable, { end: (how) => void order.push(`end ${how}`) });
    for await (const item of tapped) if (item === 1) break;
    expect(order).toEqual(['source finally', 'end returned']);
  });

  it('waits for an asynchronous end before the stream ends', async () => {
    const { iterable } = source([1]);
    let settled = false;
    const tapped = tapIterable(iterable, {
      end: () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            settled = true;
            resolve();
          }, 20),
        ),
    });
    await drain(tapped);
    expect(settled).toBe(true);
  });

  it('opens nothing when returned before its first read, and ends with unread', async () => {
    let opened = false;
    const iterable: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => {
        opened = true;
        return { next: async () => ({ done: true, value: undefined }) };
      },
    };
    const ends: TapEnd[] = [];
    const tapped = tapIterable(iterable, { end: (how) => void ends.push(how) });
    await tapped.return?.();
    expect(opened).toBe(false);
    expect(ends).toEqual(['unread']);
  });

  it('holds an item back until an asynchronous item() settled, and fails the stream when it rejects', async () => {
    const order: string[] = [];
    const tapped = tapIterable(source([1, 2]).iterable, {
      item: (n) =>
        n === 1
          ? new Promise<void>((resolve) =>
              setTimeout(() => {
                order.push('checked 1');
                resolve();
              }, 10),
            )
          : undefined,
    });
    for await (const item of tapped) order.push(`got ${item}`);
    expect(order).toEqual(['checked 1', 'got 1', 'got 2']);

    const { iterable, log } = source([1, 2]);
    const failing = tapIterable(iterable, { item: () => Promise.reject(new Error('lane refused')) });
    await expect(drain(failing)).rejects.toThrow('lane refused');
    expect(log).toEqual(['source finally']);
  });
});

describe('mapIterable', () => {
  it('returns the source when map throws, then fails with that error', async () => {
    const { iterable, log } = source([1, 2]);
    const mapped = mapIterable(iterable, (n) => {
      if (n === 2) throw new Error('map broke');
      return n;
    });
    await expect(drain(mapped)).rejects.toThrow('map broke');
    expect(log).toEqual(['source finally']);
  });

  it('maps each item and forwards return() to the source', async () => {
    const { iterable, log } = source([1, 2, 3]);
    const seen: number[] = [];
    for await (const item of mapIterable(iterable, (n) => n * 10)) {
      seen.push(item);
      if (item === 20) break;
    }
    expect(seen).toEqual([10, 20]);
    expect(log).toEqual(['source finally']);
  });
});

describe('deferIterable', () => {
  it('opens on the first read, not before, then reads the source directly', async () => {
    let opens = 0;
    const deferred = deferIterable(async () => {
      opens++;
      return source([1, 2]).iterable;
    });
    expect(opens).toBe(0);
    expect(await drain(deferred)).toEqual([1, 2]);
    expect(opens).toBe(1);
  });

  it("makes what open throws or rejects with the stream's first error", async () => {
    const throwing = deferIterable<number>(() => {
      throw new Error('refused');
    });
    await expect(throwing.next()).rejects.toThrow('refused');
    const rejecting = deferIterable<number>(() => Promise.reject(new Error('not visible')));
    await expect(drain(rejecting)).rejects.toThrow('not visible');
  });

  it('forwards an early return to the opened source', async () => {
    const { iterable, log } = source([1, 2, 3]);
    for await (const item of deferIterable(() => iterable)) if (item === 1) break;
    expect(log).toEqual(['source finally']);
  });

  it('lets go of open, and of what it holds, once the source is open: an idle stream keeps neither', async () => {
    let held: WeakRef<object> | undefined;
    const deferred = (() => {
      // What a decorator's open holds (its request, its call's context) for as long as open is kept.
      const scope = { request: 'a request' };
      held = new WeakRef(scope);
      return deferIterable(() => (scope.request ? source([1, 2]).iterable : source([]).iterable));
    })();
    await deferred.next();
    // A WeakRef's target is kept to the end of the job that made it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(held?.deref()).toBeUndefined();
    expect(await deferred.next()).toEqual({ done: false, value: 2 });
  });

  it('opens nothing when returned before its first read', async () => {
    let opened = false;
    const deferred = deferIterable(() => {
      opened = true;
      return source([1]).iterable;
    });
    await deferred.return?.();
    expect(opened).toBe(false);
    expect(await deferred.next()).toEqual({ done: true, value: undefined });
  });
});

describe('reshapeFirst', () => {
  it('hands on what the first item became, then the rest unlooked at', async () => {
    const { iterable } = source([1, 2, 3]);
    const looked: number[] = [];
    const reshaped = reshapeFirst(iterable, (first) => (looked.push(first), [10, first]));
    expect(await drain(reshaped)).toEqual([10, 1, 2, 3]);
    expect(looked).toEqual([1]);
    expect(await drain(reshapeFirst(source([1, 2]).iterable, () => []))).toEqual([2]);
    expect(await drain(reshapeFirst(source([]).iterable, () => [9]))).toEqual([]);
  });

  it('returned between what the first item became, ends the source and hands on nothing more', async () => {
    const { iterable, log } = source([1, 2]);
    const reader = reshapeFirst(iterable, (first) => [0, first])[Symbol.asyncIterator]();
    expect(await reader.next()).toEqual({ done: false, value: 0 });
    await reader.return?.();
    expect(log).toEqual(['source finally']);
  });

  it('fails as the source does, and returns the source when the reshape throws', async () => {
    await expect(drain(reshapeFirst(source([1], { failAfter: 0 }).iterable, (first) => [first]))).rejects.toThrow('source broke');
    const { iterable, log } = source([1, 2]);
    const broken = reshapeFirst(iterable, () => {
      throw new Error('reshape broke');
    });
    await expect(drain(broken)).rejects.toThrow('reshape broke');
    expect(log).toEqual(['source finally']);
  });
});

describe('a stack of pass-through layers', () => {
  /** Items `0..count-1`, each read as one settled promise: what an upstream reader hands on. */
  function counter(count: number): AsyncIterable<number> {
    let next = 0;
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve(next < count ? { done: false, value: next++ } : { done: true as const, value: undefined }),
      }),
    };
  }

  /** The promises made per item while `stack` is read to its end (what a relayed stream pays per event and layer). */
  async function promisesPerItem<T>(stack: AsyncIterable<T>, items: number): Promise<number> {
    let promises = 0;
    const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
    try {
      await drain(stack);
    } finally {
      hook.disable();
    }
    return promises / items;
  }

  /** `layers` taps and maps in turn over `source`, with the layers that step aside past their start between them. */
  function stacked(source: AsyncIterable<number>, layers: number, seen: string[]): AsyncIterable<number> {
    let stack = source;
    for (let layer = 0; layer < layers; layer++) {
      const below = stack;
      stack =
        layer % 2 === 0
          ? tapIterable(
              reshapeFirst(below, (first) => [first]),
              { item: (n) => void seen.push(`tap ${layer}: ${n}`) },
            )
          : mapIterable(
              deferIterable(() => below),
              (n) => (seen.push(`map ${layer}: ${n}`), n),
            );
    }
    const iterator = stack[Symbol.asyncIterator]();
    const head = iterator.next();
    return headThenRest(head, iterator, () => undefined);
  }

  it('reads a run of taps and maps in one reaction per item, however many layers: no promise per layer and item', async () => {
    const items = 200;
    const one = await promisesPerItem(stacked(counter(items), 1, []), items);
    const ten = await promisesPerItem(stacked(counter(items), 10, []), items);
    // One layer and ten cost the same per item, give or take their opening reads.
    expect(ten - one).toBeLessThan(0.5);
  });

  it('shows every item to every layer, innermost first, and hands each on in order', async () => {
    const seen: string[] = [];
    expect(await drain(stacked(counter(2), 4, seen))).toEqual([0, 1]);
    expect(seen).toEqual(['tap 0: 0', 'map 1: 0', 'tap 2: 0', 'map 3: 0', 'tap 0: 1', 'map 1: 1', 'tap 2: 1', 'map 3: 1']);
  });
});

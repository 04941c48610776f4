/**
 * A SteppedStage (core/stepped-stages.ts) does what the async generator it replaces did, read for read: the same items,
 * the same calls on its source in the same order, the same end (its `finally`) on every path; and a run of them is
 * read in one reaction per item.
 */
import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { mapIterable } from '../../src/core/iterables.js';
import { SteppedStage, type Step } from '../../src/core/stepped-stages.js';

/** A source that logs what is asked of it; an Error item fails the read, `hold` keeps a read pending until released. */
function source(items: Array<number | Error>, log: string[], hold?: { at: number; release?: () => void }): AsyncIterable<number> {
  return {
    [Symbol.asyncIterator]() {
      log.push('open');
      let at = 0;
      return {
        next(): Promise<IteratorResult<number>> {
          log.push('next');
          const item = items[at++];
          const result = (): Promise<IteratorResult<number>> =>
            item === undefined
              ? Promise.resolve({ done: true, value: undefined })
              : item instanceof Error
                ? Promise.reject(item)
                : Promise.resolve({ done: false, value: item });
          if (hold?.at !== at - 1) return result();
          return new Promise((resolve) => (hold.release = () => resolve(result())));
        },
        return(): Promise<IteratorResult<number>> {
          log.push('return');
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}

/** The generator: each item as two, a failed read answered with one item, a negative item a failure, the end logged. */
async function* pairsGenerator(events: AsyncIterable<number>, log: string[]): AsyncGenerator<string> {
  const iterator = events[Symbol.asyncIterator]();
  let live = true;
  try {
    for (;;) {
      let next: IteratorResult<number>;
      try {
        next = await iterator.next();
      } catch {
        live = false;
        yield 'failed';
        return;
      }
      if (next.done) {
        live = false;
        return;
      }
      if (next.value < 0) throw new Error('negative');
      yield `${next.value}a`;
      yield `${next.value}b`;
    }
  } finally {
    if (live) await iterator.return?.();
    log.push('finish');
  }
}

/** The same as a stage. */
class Pairs extends SteppedStage<number, string> {
  constructor(
    private readonly events: AsyncIterable<number>,
    private readonly log: string[],
  ) {
    super();
  }
  protected open(): AsyncIterator<number> {
    return this.events[Symbol.asyncIterator]();
  }
  protected step(result: IteratorResult<number>): Step<string> | Promise<Step<string>> {
    if (result.done) return { items: [], end: true };
    if (result.value < 0) throw new Error('negative');
    return { items: [`${result.value}a`, `${result.value}b`] };
  }
  protected override recover(): Step<string> {
    return { items: ['failed'], end: true };
  }
  protected override finish(): void {
    this.log.push('finish');
  }
}

/** The same, each step made a little later: what it makes waits for it, and what it rejects with fails the stream. */
class LaterPairs extends Pairs {
  protected override step(result: IteratorResult<number>): Promise<Step<string>> {
    return new Promise((resolve) => setImmediate(resolve)).then(() => super.step(result));
  }
}

type Make = (events: AsyncIterable<number>, log: string[]) => AsyncIterator<string>;
const generator: Make = (events, log) => pairsGenerator(events, log);
const stage: Make = (events, log) => new Pairs(events, log);
const laterStage: Make = (events, log) => new LaterPairs(events, log);

const settled = (read: Promise<IteratorResult<string>>): Promise<unknown> =>
  read.then(
    (result) => (result.done ? 'done' : result.value),
    (error: Error) => `threw ${error.message}`,
  );

/** Reads `reads` times (then returns, with `returnAfter`), logging what each read and the return gave. */
async function trace(make: Make, items: Array<number | Error>, reads: number, returnAfter = false): Promise<string[]> {
  const log: string[] = [];
  const iterator = make(source(items, log), log);
  for (let read = 0; read < reads; read++) log.push(`read ${String(await settled(iterator.next()))}`);
  if (returnAfter) log.push(`returned ${String(await settled(iterator.return!()))}`);
  return log;
}

describe('a stepped stage, as the generator it replaces', () => {
  const cases: Array<[string, Array<number | Error>, number, boolean?]> = [
    ['read to its end', [1, 2], 6],
    ['a failed read answered, the source not returned', [1, new Error('cut'), 3], 5],
    ['a failing step: the source returned first', [1, -1, 3], 4],
    ['returned between two items one item made', [1, 2], 1, true],
    ['returned after its end', [1], 4, true],
    ['returned before its first read: nothing opened, no end', [1], 0, true],
  ];
  for (const [name, items, reads, returnAfter] of cases) {
    it(name, async () => {
      expect(await trace(stage, items, reads, returnAfter)).toEqual(await trace(generator, items, reads, returnAfter));
    });
    it(`${name}, each step made later`, async () => {
      expect(await trace(laterStage, items, reads, returnAfter)).toEqual(await trace(generator, items, reads, returnAfter));
    });
  }

  it('a return during a read waits for that read, which gets its item, then returns the source', async () => {
    const run = async (make: Make): Promise<string[]> => {
      const log: string[] = [];
      const hold: { at: number; release?: () => void } = { at: 1 };
      const iterator = make(source([1, 2, 3], log, hold), log);
      await iterator.next();
      await iterator.next();
      const pending = settled(iterator.next()).then((value) => log.push(`read ${String(value)}`));
      const returning = settled(iterator.return!()).then((value) => log.push(`returned ${String(value)}`));
      await new Promise((resolve) => setTimeout(resolve, 10));
      log.push('released');
      hold.release!();
      await Promise.all([pending, returning]);
      log.push(`then ${String(await settled(iterator.next()))}`);
      return log;
    };
    const log = await run(stage);
    expect(log).toEqual(await run(generator));
    expect(log.indexOf('released')).toBeLessThan(log.indexOf('return'));
  });

  it('a run of them is read in one reaction per item: ten make no more promises per item than one', async () => {
    class Passed extends SteppedStage<number, number> {
      constructor(private readonly events: AsyncIterable<number>) {
        super();
      }
      protected open(): AsyncIterator<number> {
        return this.events[Symbol.asyncIterator]();
      }
      protected step(result: IteratorResult<number>): Step<number> {
        return result.done ? { items: [], end: true } : { items: [result.value] };
      }
    }
    const items = Array.from({ length: 500 }, (_, n) => n);
    const stacked = (layers: number): AsyncIterable<number> => {
      // Under a map, as on a facade stream: the run reaches through both kinds of Stage.
      let events: AsyncIterable<number> = mapIterable(source(items, []), (n) => n);
      for (let layer = 0; layer < layers; layer++) {
        const below = events;
        events = { [Symbol.asyncIterator]: () => new Passed(below) };
      }
      return events;
    };
    const perItem = async (layers: number): Promise<number> => {
      let promises = 0;
      let read = 0;
      const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
      try {
        for await (const _ of stacked(layers)) read++;
      } finally {
        hook.disable();
      }
      expect(read).toBe(items.length);
      return promises / items.length;
    };
    await perItem(10);
    const one = await perItem(1);
    const ten = await perItem(10);
    // As generators, each layer made some five promises per item.
    expect(ten - one).toBeLessThan(0.3);
  });
});

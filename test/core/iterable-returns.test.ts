import { describe, expect, it } from 'vitest';
import { deferIterable, headThenRest, mapIterable, reshapeFirst, tapIterable } from '../../src/core/iterables.js';

/** A source whose `return()` throws at its call, rejects, or settles once let go; it records what it was asked. */
function source(onReturn: 'throws' | 'rejects' | 'waits') {
  const log: string[] = [];
  let letGo: () => void = () => undefined;
  const iterator: AsyncIterator<number> = {
    next: () => Promise.resolve({ done: false, value: 1 }),
    return: () => {
      log.push('return');
      if (onReturn === 'throws') throw new Error('return threw');
      if (onReturn === 'rejects') return Promise.reject(new Error('return rejected'));
      return new Promise((resolve) => {
        letGo = () => {
          log.push('source returned');
          resolve({ done: true, value: undefined });
        };
      });
    },
  };
  const iterable: AsyncIterable<number> = { [Symbol.asyncIterator]: () => iterator };
  return { iterable, iterator, log, letGo: () => letGo() };
}

/** Each layer over `iterable`, read once so that its source is open, as a send's end finds it. */
const layers: Record<string, (iterable: AsyncIterable<number>, iterator: AsyncIterator<number>) => AsyncIterator<number>> = {
  mapIterable: (iterable) => mapIterable(iterable, (n) => n)[Symbol.asyncIterator](),
  tapIterable: (iterable) => tapIterable(iterable, {}),
  deferIterable: (iterable) => deferIterable(() => iterable),
  reshapeFirst: (iterable) => reshapeFirst(iterable, (first) => [first])[Symbol.asyncIterator](),
  headThenRest: (_, iterator) => headThenRest(iterator.next(), iterator, () => undefined),
};

describe("a layer's return(), which a send's end runs down every layer", () => {
  for (const [name, layer] of Object.entries(layers)) {
    it(`${name}: a source's return that throws at its call rejects the layer's return, and throws nothing at the call`, async () => {
      const { iterable, iterator } = source('throws');
      const reader = layer(iterable, iterator);
      await reader.next();
      let returned: Promise<unknown> | undefined;
      expect(() => (returned = reader.return?.())).not.toThrow();
      await expect(returned).rejects.toThrow('return threw');
    });

    it(`${name}: a source's return that rejects rejects the layer's return`, async () => {
      const { iterable, iterator } = source('rejects');
      const reader = layer(iterable, iterator);
      await reader.next();
      await expect(reader.return?.()).rejects.toThrow('return rejected');
    });

    it(`${name}: the layer's return is done only once the source's return settled`, async () => {
      const { iterable, iterator, log, letGo } = source('waits');
      const reader = layer(iterable, iterator);
      await reader.next();
      const returned = reader.return?.().then((result) => (log.push('layer returned'), result));
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(log).toEqual(['return']);
      letGo();
      expect(await returned).toEqual({ done: true, value: undefined });
      expect(log).toEqual(['return', 'source returned', 'layer returned']);
    });
  }

  it('deferIterable returned while it opens: the source is returned once open, and the layer is done after it', async () => {
    const { iterable, log, letGo } = source('waits');
    let open: (value: AsyncIterable<number>) => void = () => undefined;
    const deferred = deferIterable(() => new Promise<AsyncIterable<number>>((resolve) => (open = resolve)));
    const reading = deferred.next();
    const returned = deferred.return?.().then((result) => (log.push('layer returned'), result));
    open(iterable);
    await reading;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['return']);
    letGo();
    expect(await returned).toEqual({ done: true, value: undefined });
    expect(log).toEqual(['return', 'source returned', 'layer returned']);
  });
});

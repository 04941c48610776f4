import { describe, expect, it } from 'vitest';
import { tapIterable, type Tap, type TapEnd } from '../../src/core/iterables.js';

/** An open source of endless items whose `return()` does as asked; it records what it was asked. */
function source(onReturn: 'closes' | 'throws' | 'rejects' | 'none', log: string[]) {
  const iterator: AsyncIterator<number> = {
    next: () => Promise.resolve({ done: false, value: 1 }),
  };
  if (onReturn !== 'none') {
    iterator.return = () => {
      log.push('source return');
      if (onReturn === 'throws') throw new Error('return threw');
      if (onReturn === 'rejects') return Promise.reject(new Error('return rejected'));
      return Promise.resolve({ done: true, value: undefined });
    };
  }
  return { [Symbol.asyncIterator]: () => iterator };
}

/** A tap that records each end with what it failed with, and ends as asked. */
function ending(log: string[], name = 'tap', end?: () => Promise<unknown> | void): Tap<number> {
  return {
    end: (how: TapEnd, error?: unknown) => {
      log.push(error instanceof Error ? `${name} end ${how}: ${error.message}` : `${name} end ${how}`);
      return end?.();
    },
  };
}

const later = (log: string[], what: string) => () =>
  new Promise<void>((resolve) =>
    setTimeout(() => {
      log.push(what);
      resolve();
    }, 5),
  );

describe("a tap's end when its reader returns the stream", () => {
  for (const onReturn of ['throws', 'rejects'] as const) {
    it(`a source's return that ${onReturn} still ends the tap once, with returned, and the return fails with it`, async () => {
      const log: string[] = [];
      const tapped = tapIterable(source(onReturn, log), ending(log));
      await tapped.next();
      await expect(tapped.return?.()).rejects.toThrow(/^return (threw|rejected)$/);
      expect(log).toEqual(['source return', 'tap end returned']);
      expect(await tapped.return?.()).toEqual({ done: true, value: undefined });
      expect(log).toEqual(['source return', 'tap end returned']);
    });
  }

  it('a source without return ends the tap with returned at once', async () => {
    const log: string[] = [];
    const tapped = tapIterable(source('none', log), ending(log));
    await tapped.next();
    expect(await tapped.return?.()).toEqual({ done: true, value: undefined });
    expect(log).toEqual(['tap end returned']);
  });

  it('waits for an asynchronous end before the return is done', async () => {
    const log: string[] = [];
    const tapped = tapIterable(source('closes', log), ending(log, 'tap', later(log, 'end settled')));
    await tapped.next();
    await tapped.return?.();
    log.push('returned');
    expect(log).toEqual(['source return', 'tap end returned', 'end settled', 'returned']);
  });

  it('waits for an asynchronous end before an unread stream is returned', async () => {
    const log: string[] = [];
    await tapIterable(source('closes', log), ending(log, 'tap', later(log, 'end settled'))).return?.();
    log.push('returned');
    expect(log).toEqual(['tap end unread', 'end settled', 'returned']);
  });

  it("fails the return with what the end rejects with or throws, over the source's own failure", async () => {
    const log: string[] = [];
    const rejecting = tapIterable(
      source('rejects', log),
      ending(log, 'tap', () => Promise.reject(new Error('end rejected'))),
    );
    await rejecting.next();
    await expect(rejecting.return?.()).rejects.toThrow('end rejected');
    const throwing = tapIterable(
      source('throws', log),
      ending(log, 'tap', () => {
        throw new Error('end threw');
      }),
    );
    await throwing.next();
    await expect(throwing.return?.()).rejects.toThrow('end threw');
    await expect(
      tapIterable(
        source('closes', log),
        ending(log, 'tap', () => {
          throw new Error('end threw');
        }),
      ).return?.(),
    ).rejects.toThrow('end threw');
  });

  it('returned twice at once: the source is asked by both, the tap ends once, and both returns are done', async () => {
    const log: string[] = [];
    const tapped = tapIterable(source('closes', log), ending(log, 'tap', later(log, 'end settled')));
    await tapped.next();
    const both = await Promise.all([tapped.return?.(), tapped.return?.()]);
    expect(both).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
    expect(log.filter((entry) => entry.startsWith('tap end'))).toEqual(['tap end returned']);
  });

  it('a stack of taps ends innermost first, each after the layer below it returned', async () => {
    const log: string[] = [];
    let stack: AsyncIterable<number> = source('closes', log);
    for (const name of ['inner', 'middle', 'outer']) stack = tapIterable(stack, ending(log, name, later(log, `${name} settled`)));
    const reader = stack[Symbol.asyncIterator]();
    await reader.next();
    await reader.return?.();
    expect(log).toEqual([
      'source return',
      'inner end returned',
      'inner settled',
      'middle end returned',
      'middle settled',
      'outer end returned',
      'outer settled',
    ]);
  });
});

describe("a tap's end when its stream ends by itself", () => {
  it('fails the read with what the end rejects with or throws, when the source is done', async () => {
    const done: AsyncIterable<number> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }) };
    const log: string[] = [];
    await expect(
      tapIterable(
        done,
        ending(log, 'tap', () => Promise.reject(new Error('end rejected'))),
      ).next(),
    ).rejects.toThrow('end rejected');
    await expect(
      tapIterable(
        done,
        ending(log, 'tap', () => {
          throw new Error('end threw');
        }),
      ).next(),
    ).rejects.toThrow('end threw');
    expect(log).toEqual(['tap end done', 'tap end done']);
  });

  it("fails the read with the source's failure after an asynchronous end('failed') settled, or with what the end rejects with", async () => {
    const broken: AsyncIterable<number> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('source broke')) }) };
    const log: string[] = [];
    const read = tapIterable(broken, ending(log, 'tap', later(log, 'end settled')))
      .next()
      .catch((error: Error) => void log.push(`read failed: ${error.message}`));
    await read;
    expect(log).toEqual(['tap end failed: source broke', 'end settled', 'read failed: source broke']);
    await expect(
      tapIterable(
        broken,
        ending(log, 'tap', () => Promise.reject(new Error('end rejected'))),
      ).next(),
    ).rejects.toThrow('end rejected');
  });

  it('ends once, with done, when returned after the source was done', async () => {
    const log: string[] = [];
    const done: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: true, value: undefined }),
        return: () => (log.push('source return'), Promise.resolve({ done: true, value: undefined })),
      }),
    };
    const tapped = tapIterable(done, ending(log));
    expect(await tapped.next()).toEqual({ done: true, value: undefined });
    expect(await tapped.return?.()).toEqual({ done: true, value: undefined });
    expect(log).toEqual(['tap end done']);
  });
});

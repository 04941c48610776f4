import { LRUCache } from 'lru-cache';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { FairLru, type FairLruRemoval } from '../../src/core/fair-lru.js';
import { countBound } from '../../src/lru-count-bound.js';

type Removal = [key: string, reason: FairLruRemoval];

function recording(options: { max: number; maxSize?: number; ttl?: number }): { cache: FairLru<string, string>; removed: Removal[] } {
  const removed: Removal[] = [];
  const cache = new FairLru<string, string>({ ...options, onRemove: (_value, key, reason) => removed.push([key, reason]) });
  return { cache, removed };
}

const keysOf = (cache: FairLru<string, string>, candidates: readonly string[]): string[] => candidates.filter((key) => cache.peek(key) !== undefined);

/** A small deterministic generator, so a failing sequence is the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('FairLru with one owner', () => {
  it('evicts exactly what an LRU evicts, uses included', () => {
    const next = random(7);
    const fair = recording({ max: 20 });
    const lruEvicted: string[] = [];
    const lru = new LRUCache<string, string>({ ...countBound(20), dispose: (_v, key, reason) => reason === 'evict' && lruEvicted.push(key) });
    const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
    for (let step = 0; step < 5_000; step++) {
      const key = keys[Math.floor(next() * keys.length)]!;
      const op = next();
      if (op < 0.5) {
        fair.cache.set(key, `v${step}`, 'only');
        lru.set(key, `v${step}`);
      } else if (op < 0.9) {
        expect(fair.cache.get(key)).toBe(lru.get(key));
      } else {
        expect(fair.cache.delete(key)).toBe(lru.delete(key));
      }
    }
    expect(fair.removed.filter(([, reason]) => reason === 'evict').map(([key]) => key)).toEqual(lruEvicted);
    expect(keysOf(fair.cache, keys)).toEqual(keys.filter((key) => lru.peek(key) !== undefined));
    expect(fair.cache.size).toBe(lru.size);
  });
});

describe('FairLru with several owners', () => {
  it('lets a flood of one owner push out only its own entries', () => {
    const { cache, removed } = recording({ max: 10 });
    cache.set('alice-1', 'a', 'alice');
    for (let i = 0; i < 100; i++) cache.set(`bob-${i}`, 'b', 'bob');
    expect(cache.get('alice-1')).toBe('a');
    expect(cache.size).toBe(10);
    // Bob keeps his nine latest; his first ninety-one went, oldest first.
    expect(removed).toEqual(Array.from({ length: 91 }, (_, i): Removal => [`bob-${i}`, 'evict']));
    expect(
      keysOf(
        cache,
        Array.from({ length: 100 }, (_, i) => `bob-${i}`),
      ),
    ).toEqual(Array.from({ length: 9 }, (_, i) => `bob-${91 + i}`));
  });

  it('takes from whoever holds the most, its least recently used entry', () => {
    const { cache, removed } = recording({ max: 6 });
    for (const key of ['a1', 'a2', 'a3']) cache.set(key, key, 'alice');
    for (const key of ['b1', 'b2']) cache.set(key, key, 'bob');
    cache.set('c1', 'c1', 'carol');
    cache.get('a1');
    cache.set('c2', 'c2', 'carol');
    expect(removed).toEqual([['a2', 'evict']]);
    // Alice and Bob now hold two each, Carol two: Carol's write breaks the tie and pays for itself.
    cache.set('c3', 'c3', 'carol');
    expect(removed).toEqual([
      ['a2', 'evict'],
      ['c1', 'evict'],
    ]);
  });

  it('lets a newcomer take from the owner holding the most, never its own new entry', () => {
    const { cache, removed } = recording({ max: 2 });
    cache.set('a1', 'a1', 'alice');
    cache.set('b1', 'b1', 'bob');
    cache.set('c1', 'c1', 'carol');
    expect(removed).toEqual([['a1', 'evict']]);
    expect(cache.get('c1')).toBe('c1');
    cache.set('d1', 'd1', 'dave');
    expect(cache.get('d1')).toBe('d1');
    expect(cache.size).toBe(2);
  });

  it('moves an entry set again by another owner to that owner', () => {
    const { cache, removed } = recording({ max: 3 });
    cache.set('a1', 'a1', 'alice');
    cache.set('shared', 'x', 'alice');
    cache.set('b1', 'b1', 'bob');
    cache.set('shared', 'y', 'bob');
    cache.set('c1', 'c1', 'carol');
    // Bob now holds two (b1, shared), Alice one: Bob's oldest goes.
    expect(removed).toEqual([['b1', 'evict']]);
    expect(cache.peek('shared')).toBe('y');
  });

  it('evicts only from an owner that held the most, never the entry just written', () => {
    const next = random(11);
    const owners = ['alice', 'bob', 'carol', 'dave'];
    const held = new Map<string, string>();
    let writing: { key: string; owner: string } | undefined;
    const cache = new FairLru<string, string>({
      max: 12,
      onRemove: (owner, key, reason) => {
        if (reason !== 'evict') return void held.delete(key);
        const counts = new Map<string, number>();
        for (const holder of held.values()) counts.set(holder, (counts.get(holder) ?? 0) + 1);
        expect(key).not.toBe(writing?.key);
        expect(counts.get(owner)).toBe(Math.max(...counts.values()));
        held.delete(key);
      },
    });
    for (let step = 0; step < 5_000; step++) {
      const owner = owners[Math.floor(next() * (step % 500 < 250 ? 1.2 : owners.length))] ?? 'alice';
      const key = `k${Math.floor(next() * 40)}`;
      if (next() < 0.8) {
        writing = { key, owner };
        held.set(key, owner);
        cache.set(key, owner, owner);
      } else if (held.has(key)) {
        cache.delete(key);
      }
      expect(cache.size).toBe(held.size);
      expect(cache.size).toBeLessThanOrEqual(12);
    }
  });
});

describe('FairLru bounds and removals', () => {
  it('bounds the total size, keeping an entry larger than the budget alone', () => {
    const { cache, removed } = recording({ max: 100, maxSize: 10 });
    cache.set('a1', 'a1', 'alice', 4);
    cache.set('a2', 'a2', 'alice', 4);
    cache.set('b1', 'b1', 'bob', 4);
    expect(removed).toEqual([['a1', 'evict']]);
    cache.set('b2', 'b2', 'bob', 10);
    expect(removed).toEqual([
      ['a1', 'evict'],
      ['b1', 'evict'],
      ['a2', 'evict'],
    ]);
    expect(cache.get('b2')).toBe('b2');
    expect(cache.size).toBe(1);
  });

  it('never evicts the entry just written, even when its owner was the first to hold the most', () => {
    const { cache, removed } = recording({ max: 100, maxSize: 10 });
    cache.set('a1', 'a1', 'alice', 4);
    cache.set('b1', 'b1', 'bob', 4);
    // Alice's one entry grows: Bob, holding as many, pays.
    cache.set('a1', 'a1+', 'alice', 8);
    expect(removed).toEqual([['b1', 'evict']]);
    // Grown past the whole budget, it is kept, alone.
    cache.set('a1', 'a1++', 'alice', 15);
    expect(cache.get('a1')).toBe('a1++');
    expect(cache.size).toBe(1);
  });

  it('counts a new size when an entry is set again', () => {
    const { cache, removed } = recording({ max: 100, maxSize: 10 });
    cache.set('a1', 'a1', 'alice', 3);
    cache.set('a2', 'a2', 'alice', 3);
    cache.set('a2', 'a2+', 'alice', 7);
    expect(removed).toEqual([]);
    cache.set('a2', 'a2++', 'alice', 8);
    expect(removed).toEqual([['a1', 'evict']]);
  });

  it('forgets an entry not set for the TTL, reading it as expired; a set renews it', () => {
    // The clock is the test's: a loaded host's sleep overshoots a TTL this short.
    let now = 1_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    onTestFinished(() => clock.mockRestore());
    const { cache, removed } = recording({ max: 10, ttl: 60 });
    cache.set('old', 'old', 'alice');
    cache.set('renewed', 'renewed', 'alice');
    now += 40;
    cache.set('renewed', 'renewed', 'alice');
    // A read does not renew it.
    expect(cache.get('old')).toBe('old');
    now += 40;
    expect(cache.peek('old')).toBeUndefined();
    expect(cache.peek('old', { allowStale: true })).toBe('old');
    expect(cache.get('old')).toBeUndefined();
    expect(cache.get('renewed')).toBe('renewed');
    expect(removed).toEqual([['old', 'expire']]);
    expect(cache.size).toBe(1);
  });

  it('reports deleted and cleared entries as deleted', () => {
    const { cache, removed } = recording({ max: 10 });
    cache.set('a1', 'a1', 'alice');
    cache.set('b1', 'b1', 'bob');
    cache.set('b2', 'b2', 'bob');
    expect(cache.delete('a1')).toBe(true);
    expect(cache.delete('a1')).toBe(false);
    cache.clear();
    expect(removed).toEqual([
      ['a1', 'delete'],
      ['b1', 'delete'],
      ['b2', 'delete'],
    ]);
    expect(cache.size).toBe(0);
    // Bookkeeping starts afresh: a flood after clear() still pushes out only its own.
    cache.set('a1', 'a1', 'alice');
    for (let i = 0; i < 20; i++) cache.set(`b${i}`, 'b', 'bob');
    expect(cache.get('a1')).toBe('a1');
  });
});

import { describe, expect, it } from 'vitest';
import { SortedMembers } from '../../../src/core/task-registry/sorted-members.js';

describe('SortedMembers', () => {
  it('answers as a sorted array does, through adds and deletes that split and join its runs', () => {
    let seed = 11;
    const random = (n: number) => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0), (seed >>> 8) % n);
    const members = new SortedMembers();
    const reference = new Set<string>();
    const key = (n: number) => `1${String(n).padStart(18, '0')}|t`;
    for (let step = 0; step < 20_000; step++) {
      const member = key(random(3_000));
      // Grow past several runs first, then mostly shrink, so runs split and then thin out and join.
      if (random(100) < (step < 10_000 ? 80 : 30)) {
        members.add(member);
        reference.add(member);
      } else {
        expect(members.delete(member)).toBe(reference.delete(member));
      }
      if (step % 500 !== 0) continue;
      const sorted = [...reference].sort().reverse();
      expect(members.size).toBe(sorted.length);
      expect(members.below(undefined, Infinity)).toEqual(sorted);
      const bound = key(random(3_000));
      expect(members.countAbove(bound)).toBe(sorted.filter((m) => m > bound).length);
      const floor = key(random(1_000));
      expect(members.below(bound, 40, floor)).toEqual(sorted.filter((m) => m < bound && m > floor).slice(0, 40));
    }
    expect(members.size).toBeGreaterThan(0);
  });
});

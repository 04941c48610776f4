/**
 * lru-cache options that keep at most `max` entries, each counted as 1 against `maxSize`. Given `max`
 * itself, lru-cache allocates room for every possible entry when the cache is made (with the default
 * max-tasks, 7.9 MiB and 26 ms for the two alias caches alone); counted this way, it grows with what
 * it holds. Eviction is the same: the least recently used entry goes first.
 */
export function countBound(max: number): { maxSize: number; sizeCalculation: () => number } {
  return { maxSize: max, sizeCalculation: one };
}

const one = (): number => 1;

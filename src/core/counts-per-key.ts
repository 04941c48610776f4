/** A count per key that forgets a key once it is back at zero, so keys seen once hold no memory. */
export interface CountsPerKey {
  /** One more for `key`; the count it is at now. */
  add(key: string): number;
  /** One less for `key`. */
  remove(key: string): void;
  /** The count of `key` now (0 for a key not held). */
  of(key: string): number;
}

export function countsPerKey(): CountsPerKey {
  const counts = new Map<string, number>();
  return {
    add(key) {
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return count;
    },
    remove(key) {
      const left = (counts.get(key) ?? 1) - 1;
      if (left <= 0) counts.delete(key);
      else counts.set(key, left);
    },
    of: (key) => counts.get(key) ?? 0,
  };
}

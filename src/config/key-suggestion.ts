/**
 * The known key an unknown one was most likely meant to be (`uptream` → `upstream`, `api-kye` → `api-key`),
 * so the message names the fix instead of leaving the operator to find it in a list of forty keys.
 */

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b` (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Short keys (`tls`, `port`) are a letter apart from each other: one edit there, two in longer keys. */
const editsAllowed = (typed: string): number => (typed.length <= 4 ? 1 : 2);

/** The closest of `known` within a typo's reach of `typed`, the first on a tie; undefined when none is. */
export function closestKey(typed: string, known: readonly string[]): string | undefined {
  // Keys take dashes or underscores, and variables are upper-case: compared in one spelling.
  const spelled = (key: string): string => key.toLowerCase().replace(/_/g, '-');
  const wanted = spelled(typed);
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(wanted, spelled(key));
    if (distance <= editsAllowed(wanted) && (!best || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

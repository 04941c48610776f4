import { withFields } from '../model/index.js';
import { isPlainObject } from './schema-tree.js';

/** The part of a zod issue this looks at. */
interface UnionIssue {
  code: string;
  path: PropertyKey[];
  /** The keys of an `unrecognized_keys` issue. */
  keys?: string[];
  /** What each option of an `invalid_union` issue found wrong. */
  errors?: UnionIssue[][];
}

/**
 * A mapping no option of a union takes (`auth.tokens: [{ tokn: x }]`, a string or `{ name, token }`) is told by
 * the keys it has that no option knows too, as an unknown key anywhere else is (with the key it was likely meant
 * to be): the union's own message says what shapes it takes, not which key is wrong. `given` is the value at the
 * issue's path.
 */
export function unfoldUnion<T extends UnionIssue>(issue: T, given: unknown): T[] {
  if (issue.code !== 'invalid_union' || !isPlainObject(given)) return [issue];
  const unknown = (issue.errors ?? []).flat().filter((inner) => inner.code === 'unrecognized_keys') as T[];
  const unfolded = unknown.map((inner) => withFields(inner, { path: [...issue.path, ...inner.path] }));
  // Two options may both refuse a key: told once.
  const told = new Map(unfolded.map((inner) => [JSON.stringify([inner.path, inner.keys]), inner]));
  return [issue, ...told.values()];
}

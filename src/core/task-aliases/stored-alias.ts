import { isRecord } from '../../model/json.js';
import type { TaskAlias } from './types.js';

/** An alias as the Redis store writes it: `{}` while pending, `{ upstream }` once bound; the shared key of before names its `owner` too. */
export type StoredAlias = TaskAlias & { owner?: string };

/**
 * A stored alias read back; undefined for a value the store never writes (not JSON, not an object, an id that
 * is no string: another tool's value, a bad restore). Such a value names no task, so it is no alias at all:
 * read as one it would send the caller to a task nobody can tell, or fail every call that names its id.
 */
export function parseStoredAlias(raw: string): StoredAlias | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { upstream, owner } = value;
  if ((upstream !== undefined && typeof upstream !== 'string') || (owner !== undefined && typeof owner !== 'string')) return undefined;
  const alias: StoredAlias = {};
  if (upstream !== undefined) alias.upstream = upstream;
  if (owner !== undefined) alias.owner = owner;
  return alias;
}

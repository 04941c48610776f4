import { matchesLoadFilter, parseDoc, type LoadFilter } from './redis-keys.js';
import type { TaskInScope } from './types.js';

/** A task's hash fields as the registry's reads by id take them, in this order: `d o u n` (none where the hash has none). */
export type TaskFields = ReadonlyArray<string | null | undefined>;

/**
 * The task those fields hold, with its tenant and write time in µs, when it exists and `filter` keeps it. A
 * document that is not JSON throws (a damaged record is the gateway's error, not a task gone).
 */
export function taskKept([doc, owner, updated, tenant]: TaskFields, filter: LoadFilter): (TaskInScope & { updatedMicros: number }) | undefined {
  const task = parseDoc(doc)?.task;
  return task && matchesLoadFilter({ task, owner: owner ?? null, tenant: tenant ?? '' }, filter)
    ? { task, tenant: tenant ?? '', updatedMicros: Number(updated ?? 0) }
    : undefined;
}

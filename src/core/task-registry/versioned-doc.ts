import type { Task } from '../../model/index.js';
import { parseDoc } from './redis-keys.js';

/**
 * A task as the Redis store keeps it (`d`, beside its version `v`: redis-scripts.ts), what a compare-and-set starts
 * from: `{task, upstream, w}`, `w` the ids of the task's last writes (applyAll's `writeId`). A retry of a write
 * that timed out on the client but ran in Redis all the same (a CLIENT PAUSE, ioredis sending it again on its next
 * connection) finds its id there and is not folded twice (task-writer.ts, docs/core.md). Older replicas ignore `w`
 * and drop it when they write the task.
 */

/** What a compare-and-set starts from: the stored version (0 = none), its task, and whose it is (no tenant: the default). */
export interface Versioned {
  version: number;
  task: Task | undefined;
  upstream: string;
  owner?: string;
  tenant?: string;
  /** The ids of the task's last writes, kept in its document as `w`. */
  writes?: string[];
}

/** How many write ids a task keeps: its own writer's last retried one, and a few other replicas' written since. */
const KEPT_WRITE_IDS = 4;

/** The stored document `doc` at `version`, owned so; undefined when there is none. */
export function versionedDoc(version: number, doc: string | null | undefined, owner: string, tenant: string): Versioned | undefined {
  const parsed: { task: Task; upstream: string; w?: string[] } | undefined = parseDoc(doc);
  return parsed && { version, task: parsed.task, upstream: parsed.upstream, owner, tenant, ...(parsed.w ? { writes: parsed.w } : {}) };
}

/** Whether the write (no id: one never retried) is among those the task keeps: applied already. */
export const appliedAlready = (state: Versioned, writeId: string | undefined): boolean =>
  writeId !== undefined && state.writes?.includes(writeId) === true;

/** The ids the task keeps once the write is applied. */
export const keptWith = (kept: string[] | undefined, writeId: string | undefined): string[] | undefined =>
  writeId === undefined ? kept : [...(kept ?? []).slice(1 - KEPT_WRITE_IDS), writeId];

/** The document written for `task`. */
export const storedDoc = (task: Task, upstream: string, writes: string[] | undefined): string =>
  JSON.stringify({ task, upstream, ...(writes ? { w: writes } : {}) });

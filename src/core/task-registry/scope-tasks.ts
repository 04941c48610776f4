import type { Task } from '../../model/index.js';
import { memberTaskId } from './query.js';
import { SortedGroups, SortedMembers } from './sorted-members.js';

/**
 * One scope's (owner and tenant) tasks as the memory store's ListTasks reads them: by sort member (query.ts),
 * all of them and per state and per context, as the Redis store's sorted sets are, so a page costs its own
 * tasks, not every task of the caller; and in the order they were last written, so the ones the idle TTL
 * made stale (the least recently written) are found first without looking at the others.
 */
export class ScopeTasks {
  // Task id to its sort member, least recently written first (a write re-inserts).
  readonly #members = new Map<string, string>();
  readonly all = new SortedMembers();
  readonly #byState = new SortedGroups();
  readonly #byContext = new SortedGroups();

  get size(): number {
    return this.#members.size;
  }

  add(id: string, member: string, state: string, contextId: string | undefined): void {
    this.#members.set(id, member);
    this.all.add(member);
    this.#byState.add(state, member);
    if (contextId) this.#byContext.add(contextId, member);
  }

  /** Drop a task added with this state and context. */
  remove(id: string, state: string, contextId: string | undefined): void {
    const member = this.#members.get(id);
    if (member === undefined) return;
    this.#members.delete(id);
    this.all.delete(member);
    this.#byState.remove(state, member);
    if (contextId) this.#byContext.remove(contextId, member);
  }

  /** The task was written again, as it was: now the most recently written. */
  touch(id: string): void {
    const member = this.#members.get(id);
    if (member === undefined) return;
    this.#members.delete(id);
    this.#members.set(id, member);
  }

  /** Task ids, least recently written first. */
  idsByWrite(): IterableIterator<string> {
    return this.#members.keys();
  }

  withState(state: string): SortedMembers | undefined {
    return this.#byState.members(state);
  }

  inContext(contextId: string): SortedMembers | undefined {
    return this.#byContext.members(contextId);
  }
}

export interface PageQuery {
  pageSize: number;
  /** The member the page starts below (the page token's). */
  cursor?: string;
  /** The timestamp key every task listed is above (`statusTimestampAfter`). */
  afterKey?: string;
  status?: string;
  contextId?: string;
}

export interface ScopePage {
  rows: Array<{ member: string; task: Task }>;
  hasMore: boolean;
  /** How many tasks match the query, on every page. */
  total: number;
}

/**
 * A page of a scope's tasks, greatest member first. `load` gives a live task (undefined: it is gone, and
 * no longer in the scope); it is called for the page's tasks and one more, plus, with both a context and a
 * state, every task of the context (no index for the two: contexts are small; Redis does the same).
 */
export function scopePage(tasks: ScopeTasks | undefined, query: PageQuery, load: (id: string) => Task | undefined): ScopePage {
  const { pageSize, cursor, status, contextId } = query;
  // Members are `<timestamp key>|<id>` and '}' sorts above '|': a member above this has a timestamp above the key.
  const floor = query.afterKey === undefined ? undefined : `${query.afterKey}}`;
  const members = !tasks ? undefined : contextId ? tasks.inContext(contextId) : status ? tasks.withState(status) : tasks.all;
  const rows: ScopePage['rows'] = [];
  let total = 0;
  if (members && contextId && status) {
    for (const member of members.below(undefined, Infinity, floor)) {
      const task = load(memberTaskId(member));
      if (task?.status.state !== status) continue;
      total++;
      if (rows.length <= pageSize && (cursor === undefined || member < cursor)) rows.push({ member, task });
    }
  } else if (members) {
    total = floor === undefined ? members.size : members.countAbove(floor);
    let before = cursor;
    while (rows.length <= pageSize) {
      const wanted = pageSize + 1 - rows.length;
      const batch = members.below(before, wanted, floor);
      for (const member of batch) {
        const task = load(memberTaskId(member));
        if (task) rows.push({ member, task });
        else total--;
      }
      if (batch.length < wanted) break;
      before = batch.at(-1);
    }
  }
  return { rows: rows.slice(0, pageSize), hasMore: rows.length > pageSize, total };
}

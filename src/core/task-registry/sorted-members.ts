/**
 * A set of ListTasks sort members (query.ts) kept in order, so a page is read from where its token points
 * instead of sorting every task per call. Ascending runs of at most 2 × CHUNK members: finding a member is
 * two binary searches, adding or removing one moves at most a run's worth of pointers (one flat sorted
 * array would move the whole set on every status update of a stream).
 */
const CHUNK = 256;

/** The first index in `sorted` whose member is not below `member`. */
function lowerBound(sorted: readonly string[], member: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < member) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class SortedMembers {
  // Non-empty runs, each ascending, every member of a run below every member of the next.
  readonly #runs: string[][] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The first run whose last member is not below `member` (or, with `strictly`, is above it); the run count if none is. */
  #runFrom(member: string, strictly = false): number {
    let low = 0;
    let high = this.#runs.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const last = this.#runs[middle]!.at(-1)!;
      if (last < member || (strictly && last === member)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  add(member: string): void {
    const runs = this.#runs;
    if (runs.length === 0) {
      runs.push([member]);
      this.#size = 1;
      return;
    }
    const at = Math.min(this.#runFrom(member), runs.length - 1);
    const run = runs[at]!;
    const index = lowerBound(run, member);
    if (run[index] === member) return;
    run.splice(index, 0, member);
    this.#size++;
    if (run.length > 2 * CHUNK) runs.splice(at, 1, run.slice(0, CHUNK), run.slice(CHUNK));
  }

  delete(member: string): boolean {
    const runs = this.#runs;
    const at = this.#runFrom(member);
    const run = runs[at];
    if (!run) return false;
    const index = lowerBound(run, member);
    if (run[index] !== member) return false;
    run.splice(index, 1);
    this.#size--;
    const next = runs[at + 1];
    if (run.length === 0) runs.splice(at, 1);
    // Runs thinned by deletes are joined, so the number of runs stays about size / CHUNK.
    else if (next && run.length < CHUNK / 2 && run.length + next.length <= 2 * CHUNK) runs.splice(at, 2, run.concat(next));
    return true;
  }

  /** How many members are above `bound`. */
  countAbove(bound: string): number {
    const runs = this.#runs;
    const at = this.#runFrom(bound, true);
    if (at === runs.length) return 0;
    const run = runs[at]!;
    let count = run.length - lowerBound(run, bound);
    if (run[run.length - count] === bound) count--;
    for (let later = at + 1; later < runs.length; later++) count += runs[later]!.length;
    return count;
  }

  /**
   * Up to `limit` members below `before` (undefined: from the greatest), greatest first, none at or
   * below `floor`. A copy: the caller may delete members while it goes through them.
   */
  below(before: string | undefined, limit: number, floor?: string): string[] {
    const runs = this.#runs;
    const taken: string[] = [];
    let at = before === undefined ? runs.length - 1 : Math.min(this.#runFrom(before), runs.length - 1);
    let index = at < 0 ? -1 : before === undefined ? runs[at]!.length - 1 : lowerBound(runs[at]!, before) - 1;
    while (at >= 0) {
      const run = runs[at]!;
      for (; index >= 0; index--) {
        if (taken.length >= limit) return taken;
        const member = run[index]!;
        if (floor !== undefined && member <= floor) return taken;
        taken.push(member);
      }
      at--;
      index = at < 0 ? -1 : runs[at]!.length - 1;
    }
    return taken;
  }
}

/**
 * Sorted members grouped by a key (a state, a context). A group of one is kept as the member itself, as
 * IdGroups keeps ids: most contexts hold one task.
 */
export class SortedGroups {
  readonly #groups = new Map<string, string | SortedMembers>();

  add(key: string, member: string): void {
    const group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, member);
    else if (typeof group !== 'string') group.add(member);
    else if (group !== member) {
      const members = new SortedMembers();
      members.add(group);
      members.add(member);
      this.#groups.set(key, members);
    }
  }

  remove(key: string, member: string): void {
    const group = this.#groups.get(key);
    if (group === undefined) return;
    if (typeof group === 'string') {
      if (group === member) this.#groups.delete(key);
      return;
    }
    group.delete(member);
    if (group.size === 0) this.#groups.delete(key);
  }

  /** The group's members (a group of one as a set of its own, not kept). */
  members(key: string): SortedMembers | undefined {
    const group = this.#groups.get(key);
    if (typeof group !== 'string') return group;
    const single = new SortedMembers();
    single.add(group);
    return single;
  }
}

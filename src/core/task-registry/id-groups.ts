/**
 * Task ids grouped by a key (an owner, a context). A group of one is kept as the id itself: most
 * contexts hold one task, and a Set with its table costs about 300 bytes of heap and two objects the
 * collector marks, per kept task.
 */
export class IdGroups {
  readonly #groups = new Map<string, string | Set<string>>();

  add(key: string, id: string): void {
    const group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, id);
    else if (typeof group !== 'string') group.add(id);
    else if (group !== id) this.#groups.set(key, new Set([group, id]));
  }

  remove(key: string, id: string): void {
    const group = this.#groups.get(key);
    if (group === undefined) return;
    if (typeof group === 'string') {
      if (group === id) this.#groups.delete(key);
      return;
    }
    group.delete(id);
    if (group.size === 0) this.#groups.delete(key);
  }

  /** The group's ids, as a copy: the caller may remove from the group while it goes through them. */
  ids(key: string): string[] {
    const group = this.#groups.get(key);
    if (group === undefined) return [];
    return typeof group === 'string' ? [group] : [...group];
  }

  get size(): number {
    return this.#groups.size;
  }

  clear(): void {
    this.#groups.clear();
  }
}

/** Why an entry left: pushed out by the bound, stale when read, or deleted (one by one or by clear()). */
export type FairLruRemoval = 'evict' | 'expire' | 'delete';

export interface FairLruOptions<K, V> {
  /** At most this many entries. */
  max: number;
  /** At most this total of the entries' sizes (absent: no bound but the count); an entry larger is kept, alone. */
  maxSize?: number;
  /** An entry not set for this many ms is stale: not returned, dropped when read (0 or absent: never). */
  ttl?: number;
  /** Every entry that leaves, but for one replaced by set(): after it is gone from the cache. */
  onRemove?: (value: V, key: K, reason: FairLruRemoval) => void;
}

interface Entry<K, V> {
  key: K;
  value: V;
  owner: Owner<K, V>;
  size: number;
  setAt: number;
  older: Entry<K, V> | undefined;
  newer: Entry<K, V> | undefined;
}

/** An owner's entries, oldest to newest, and its place among the owners holding as many. */
interface Owner<K, V> {
  name: string;
  count: number;
  oldest: Entry<K, V> | undefined;
  newest: Entry<K, V> | undefined;
  before: Owner<K, V> | undefined;
  after: Owner<K, V> | undefined;
}

/**
 * A bounded cache whose entries each belong to an owner (a principal), where the bound takes from the
 * owner holding the most entries, its least recently used one: one owner's writes push out its own
 * entries while it holds more than any other, never those of an owner holding fewer, so one caller's
 * flood cannot make the cache forget another's. With a single owner this is a plain LRU.
 *
 * A write that ties the writer with the most pays for itself; a newcomer (its one entry just written)
 * takes from the first owner that reached the most. Every read and write is O(1): owners are bucketed by
 * their count, the most tracked as it moves by one at a time, and each owner's entries are a linked list
 * that a use moves to the end (linked lists, not insertion-ordered Maps: V8 leaves a deleted Map entry
 * as a hole until the table is rebuilt, so taking the first of a Map used as a queue costs as many
 * holes as precede it). Stale entries count until they are read or evicted, as lru-cache's do without
 * autopurge.
 */
export class FairLru<K, V> {
  readonly #max: number;
  readonly #maxSize: number | undefined;
  readonly #ttl: number;
  readonly #onRemove: FairLruOptions<K, V>['onRemove'];
  readonly #entries = new Map<K, Entry<K, V>>();
  readonly #owners = new Map<string, Owner<K, V>>();
  // The owners holding each count (the index), first to last in the order they reached it: arrays, not
  // a Map of buckets, as an owner moves between two counts on every write at the bound and a Map's
  // delete and set were most of a write's time. They grow with the most any owner held, up to `max`.
  #firstAt: Array<Owner<K, V> | undefined> = [undefined];
  #lastAt: Array<Owner<K, V> | undefined> = [undefined];
  #most = 0;
  #totalSize = 0;

  constructor(options: FairLruOptions<K, V>) {
    this.#max = options.max;
    this.#maxSize = options.maxSize;
    this.#ttl = options.ttl ?? 0;
    this.#onRemove = options.onRemove;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Store `value` under `key` for `owner` as its most recently used entry, then evict down to the bounds. */
  set(key: K, value: V, owner: string, size = 1): void {
    const setAt = this.#ttl > 0 ? performance.now() : 0;
    const previous = this.#entries.get(key);
    let writer: Owner<K, V>;
    if (previous && previous.owner.name === owner) {
      this.#totalSize += size - previous.size;
      previous.value = value;
      previous.size = size;
      previous.setAt = setAt;
      this.#touch(previous);
      writer = previous.owner;
    } else {
      if (previous) this.#unlink(previous);
      writer = this.#ownerNamed(owner);
      this.#link({ key, value, owner: writer, size, setAt, older: undefined, newer: undefined });
    }
    this.#evictFor(writer);
  }

  /** The live value, now the most recently used of its owner's; a stale one is dropped ('expire'). */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#isStale(entry)) {
      this.#remove(entry, 'expire');
      return undefined;
    }
    this.#touch(entry);
    return entry.value;
  }

  /** The value without using it; a stale one only with `allowStale`. */
  peek(key: K, options?: { allowStale?: boolean }): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry || (!options?.allowStale && this.#isStale(entry))) return undefined;
    return entry.value;
  }

  /** Whether there was an entry (stale or not) to delete. */
  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#remove(entry, 'delete');
    return true;
  }

  clear(): void {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    this.#owners.clear();
    this.#firstAt = [undefined];
    this.#lastAt = [undefined];
    this.#most = 0;
    this.#totalSize = 0;
    for (const entry of entries) this.#onRemove?.(entry.value, entry.key, 'delete');
  }

  #isStale(entry: Entry<K, V>): boolean {
    return this.#ttl > 0 && performance.now() - entry.setAt > this.#ttl;
  }

  #ownerNamed(name: string): Owner<K, V> {
    let owner = this.#owners.get(name);
    if (!owner) {
      owner = { name, count: 0, oldest: undefined, newest: undefined, before: undefined, after: undefined };
      this.#owners.set(name, owner);
    }
    return owner;
  }

  #touch(entry: Entry<K, V>): void {
    const owner = entry.owner;
    if (owner.newest === entry) return;
    detachEntry(entry);
    appendEntry(entry);
  }

  #link(entry: Entry<K, V>): void {
    this.#entries.set(entry.key, entry);
    this.#totalSize += entry.size;
    appendEntry(entry);
    this.#recount(entry.owner, entry.owner.count + 1);
  }

  #unlink(entry: Entry<K, V>): void {
    this.#entries.delete(entry.key);
    this.#totalSize -= entry.size;
    detachEntry(entry);
    this.#recount(entry.owner, entry.owner.count - 1);
  }

  #remove(entry: Entry<K, V>, reason: FairLruRemoval): void {
    this.#unlink(entry);
    this.#onRemove?.(entry.value, entry.key, reason);
  }

  /** Move an owner to the bucket of its new count (one from the old; 0: no bucket, the owner forgotten). */
  #recount(owner: Owner<K, V>, count: number): void {
    const from = owner.count;
    owner.count = count;
    if (from > 0) {
      this.#leave(from, owner);
      // An owner at the most that lost one is now at the most but one, or none is left.
      if (from === this.#most && !this.#firstAt[from]) this.#most = count;
    }
    if (count === 0) {
      this.#owners.delete(owner.name);
      return;
    }
    this.#join(count, owner);
    if (count > this.#most) this.#most = count;
  }

  #join(count: number, owner: Owner<K, V>): void {
    if (count === this.#firstAt.length) {
      this.#firstAt.push(undefined);
      this.#lastAt.push(undefined);
    }
    const last = this.#lastAt[count];
    owner.before = last;
    owner.after = undefined;
    if (last) last.after = owner;
    else this.#firstAt[count] = owner;
    this.#lastAt[count] = owner;
  }

  #leave(count: number, owner: Owner<K, V>): void {
    if (owner.before) owner.before.after = owner.after;
    else this.#firstAt[count] = owner.after;
    if (owner.after) owner.after.before = owner.before;
    else this.#lastAt[count] = owner.before;
    owner.before = owner.after = undefined;
  }

  #overBound(): boolean {
    return this.#entries.size > this.#max || (this.#maxSize !== undefined && this.#totalSize > this.#maxSize);
  }

  #evictFor(writer: Owner<K, V>): void {
    while (this.#overBound()) {
      const oldest = this.#victimOf(writer)?.oldest;
      if (!oldest) return;
      this.#remove(oldest, 'evict');
    }
  }

  /** Whose entry goes: the writer's if it holds the most (but not only the one it wrote), else the first owner at the most. */
  #victimOf(writer: Owner<K, V>): Owner<K, V> | undefined {
    if (writer.count >= 2 && writer.count === this.#most) return writer;
    const first = this.#firstAt[this.#most];
    // The writer is passed over only when it holds nothing but its new entry.
    return first === writer ? first.after : first;
  }
}

function appendEntry<K, V>(entry: Entry<K, V>): void {
  const owner = entry.owner;
  entry.older = owner.newest;
  entry.newer = undefined;
  if (owner.newest) owner.newest.newer = entry;
  else owner.oldest = entry;
  owner.newest = entry;
}

function detachEntry<K, V>(entry: Entry<K, V>): void {
  const owner = entry.owner;
  if (entry.older) entry.older.newer = entry.newer;
  else owner.oldest = entry.newer;
  if (entry.newer) entry.newer.older = entry.older;
  else owner.newest = entry.older;
  entry.older = entry.newer = undefined;
}

import { OwnerTurns } from './owner-turns.js';
import type { PushJob } from './types.js';

/**
 * The webhook a job goes to: one config of one task (of its owner), at the URL the job was made for.
 * The URL is part of it because a config whose URL was replaced still has jobs for the old one queued
 * (they are skipped at dispatch): they must not keep the new URL's notifications waiting.
 */
export function webhookOf(job: Pick<PushJob, 'owner' | 'taskId' | 'configId' | 'url'>): string {
  return JSON.stringify([job.owner, job.taskId, job.configId, job.url]);
}

interface Lane<T> {
  /** Whose webhook it is: slots are shared between owners (owner-turns.ts). */
  owner: string;
  items: T[];
  busy: boolean;
  /** Put back by `putBack`: not handed out again until `wake`. */
  parked: boolean;
}

/**
 * Deliveries waiting for their turn, in one lane per webhook. An item is handed out only while no other
 * of its lane is in flight (between `take` and `done`), so a webhook receives its notifications one at a
 * time and in the order they were added: a later one can never overtake an earlier one on the wire.
 * Lanes do not wait for each other, so one slow webhook holds only its own lane; the next item handed
 * out is the first of a ready lane of the owner with the fewest deliveries in flight (owner-turns.ts), so
 * one owner's many webhooks that never answer do not keep another owner's notifications waiting behind
 * all of theirs: the other owner's take the next slot that frees.
 */
export class WebhookLanes<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Lanes with items and nothing in flight, by owner. */
  private readonly ready = new OwnerTurns();
  private waitingCount = 0;
  private busyCount = 0;

  /** `order`: when given, each lane is kept sorted by it (items added out of order are inserted in place). */
  constructor(private readonly order?: (a: T, b: T) => number) {}

  /** `owner`: whose webhook the lane is (the job's owner); each lane is its own owner when not told. */
  add(lane: string, item: T, owner = lane): void {
    let entry = this.lanes.get(lane);
    if (!entry) {
      entry = { owner, items: [], busy: false, parked: false };
      this.lanes.set(lane, entry);
    }
    this.insert(entry.items, item);
    this.waitingCount += 1;
    if (!entry.busy && !entry.parked && entry.items.length === 1) this.ready.push(entry.owner, lane);
  }

  /**
   * The item taken from `lane` was not started after all, or failed and waits for its retry: it goes back
   * into its lane, first (or in its place, when the lane is sorted), and the lane hands out nothing until
   * `wake(lane)` (the caller's timer), so what it waits for is not asked again and again, and nothing
   * queued behind it overtakes it.
   */
  putBack(lane: string, item: T): void {
    const entry = this.lanes.get(lane);
    if (!entry?.busy) return;
    entry.busy = false;
    entry.parked = true;
    this.busyCount -= 1;
    this.ready.ended(entry.owner);
    if (this.order) this.insert(entry.items, item);
    else entry.items.unshift(item);
    this.waitingCount += 1;
  }

  /**
   * Moves the first waiting item of `lane` that `matches` to the front: the caller learned it has to go
   * before the ones sorted ahead of it. False when the lane holds none.
   */
  moveToFront(lane: string, matches: (item: T) => boolean): boolean {
    const items = this.lanes.get(lane)?.items;
    const at = items?.findIndex(matches) ?? -1;
    if (!items || at < 0) return false;
    items.unshift(...items.splice(at, 1));
    return true;
  }

  /** A lane put back may hand out its first item again. */
  wake(lane: string): void {
    const entry = this.lanes.get(lane);
    if (!entry?.parked) return;
    entry.parked = false;
    if (entry.items.length > 0) this.ready.push(entry.owner, lane);
  }

  private insert(items: T[], item: T): void {
    let at = items.length;
    // Nearly always appended: only an item fetched late (taken over from another replica) goes further in.
    while (this.order && at > 0 && this.order(items[at - 1] as T, item) > 0) at -= 1;
    items.splice(at, 0, item);
  }

  /** The next item whose lane has nothing in flight; its lane is busy until `done(lane)`. */
  take(): { lane: string; item: T } | undefined {
    const lane = this.ready.shift();
    if (lane === undefined) return undefined;
    const entry = this.lanes.get(lane) as Lane<T>;
    const item = entry.items.shift() as T;
    entry.busy = true;
    this.waitingCount -= 1;
    this.busyCount += 1;
    return { lane, item };
  }

  /** The item taken from `lane` is finished: the lane's next item (if any) may go. */
  done(lane: string): void {
    const entry = this.lanes.get(lane);
    if (!entry?.busy) return;
    entry.busy = false;
    this.busyCount -= 1;
    this.ready.ended(entry.owner);
    if (entry.items.length > 0) this.ready.push(entry.owner, lane);
    else this.lanes.delete(lane);
  }

  /** Items of `lane` not done: waiting, and the one in flight. */
  queued(lane: string): number {
    const entry = this.lanes.get(lane);
    return entry ? entry.items.length + (entry.busy ? 1 : 0) : 0;
  }

  /** Items added and not taken yet. */
  waiting(): number {
    return this.waitingCount;
  }

  /** Items taken and not done yet. */
  inFlight(): number {
    return this.busyCount;
  }

  /** Whether the next slot that frees has a taker here that is owed it (OwnerTurns.someoneUnderServedWaits). */
  someoneUnderServedWaits(): boolean {
    return this.ready.someoneUnderServedWaits();
  }

  /** Removes every item not taken yet and returns them (lanes in flight stay busy until `done`). */
  drain(): T[] {
    const items: T[] = [];
    for (const entry of this.lanes.values()) items.push(...entry.items.splice(0));
    this.ready.clear();
    this.waitingCount = 0;
    for (const [lane, entry] of this.lanes) if (!entry.busy) this.lanes.delete(lane);
    return items;
  }
}

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
  items: T[];
  busy: boolean;
}

/**
 * Deliveries waiting for their turn, in one lane per webhook. An item is handed out only while no other
 * of its lane is in flight (between `take` and `done`), so a webhook receives its notifications one at a
 * time and in the order they were added: a later one can never overtake an earlier one on the wire.
 * Lanes do not wait for each other: the next item handed out is the first of the lane that became
 * ready first, so one slow webhook holds only its own lane.
 */
export class WebhookLanes<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Lanes with items and nothing in flight, in the order they became so. */
  private readonly ready: string[] = [];
  private waitingCount = 0;
  private busyCount = 0;

  add(lane: string, item: T): void {
    let entry = this.lanes.get(lane);
    if (!entry) {
      entry = { items: [], busy: false };
      this.lanes.set(lane, entry);
    }
    entry.items.push(item);
    this.waitingCount += 1;
    if (!entry.busy && entry.items.length === 1) this.ready.push(lane);
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
    if (entry.items.length > 0) this.ready.push(lane);
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

  /** Removes every item not taken yet and returns them (lanes in flight stay busy until `done`). */
  drain(): T[] {
    const items: T[] = [];
    for (const entry of this.lanes.values()) items.push(...entry.items.splice(0));
    this.ready.length = 0;
    this.waitingCount = 0;
    for (const [lane, entry] of this.lanes) if (!entry.busy) this.lanes.delete(lane);
    return items;
  }
}

import type { WebhookLanes } from './webhook-lanes.js';
import type { Ahead } from './webhook-order.js';
import { MAX_TIMER_MS } from '../../timed-signal.js';

/** First wait of a lane whose head entry is held by another replica; doubles while it keeps waiting. */
export const MIN_PARKED_MS = 10;
/** Longest wait: how late, at most, a replica notices that the older entry another replica held is finished. */
export const MAX_PARKED_MS = 250;

/** What a lane's first entry waits for, as far as the lane can tell. */
export interface Awaited<T> {
  /** The entry waited for, by id. */
  entryId?: string;
  /** Matches the entry waited for when it may be in this very lane, sorted behind (a retry that came back as a newer entry). */
  heldHere?: (item: T) => boolean;
  /** The entry waited for is a retry due then (epoch ms): asking before is of no use. */
  dueAt?: number;
}

/** What a lane of stream entries can tell of the head of the line its first entry waits for. */
export function awaitedEntry<T extends { id: string }>(ahead: Ahead): Awaited<T> {
  return 'entryId' in ahead ? { entryId: ahead.entryId, heldHere: (held) => held.id === ahead.entryId } : { dueAt: ahead.retryDueAt };
}

/**
 * Lanes whose next entry has to wait for an older entry of its webhook that another replica holds, or
 * for its webhook's failed entry to come back from the retry set (webhook-order.ts). Such a lane hands out
 * nothing (and holds no delivery slot) until its timer wakes it; the timer doubles from `MIN_PARKED_MS`
 * to `MAX_PARKED_MS` while the lane keeps waiting, so a replica asks Redis at most a few times a second
 * per waiting webhook, and waits out a retry's delay without asking.
 */
export function parkedLanes<T>(lanes: WebhookLanes<T>, woken: () => void) {
  const waits = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();
  /** Each lane's awaited entry that the lane does not hold: another replica's, or one not read yet. */
  const awaitedElsewhere = new Map<string, string>();
  return {
    /** `item` was taken from `lane` and could not go yet. */
    park(lane: string, item: T, awaited: Awaited<T> = {}): void {
      lanes.putBack(lane, item);
      awaitedElsewhere.delete(lane);
      if (awaited.heldHere && lanes.moveToFront(lane, awaited.heldHere)) {
        // What it waits for is this lane's own: that one goes first, at once.
        waits.delete(lane);
        lanes.wake(lane);
        woken();
        return;
      }
      if (awaited.entryId !== undefined) awaitedElsewhere.set(lane, awaited.entryId);
      const backoff = Math.min(MAX_PARKED_MS, (waits.get(lane) ?? MIN_PARKED_MS / 2) * 2);
      const untilDue = (awaited.dueAt ?? 0) - Date.now();
      // Once the retry is due it is asked for as often as at first: any replica may bring it back.
      if (untilDue > backoff) waits.delete(lane);
      else waits.set(lane, backoff);
      const wait = Math.min(Math.max(backoff, untilDue), MAX_TIMER_MS);
      const timer = setTimeout(() => {
        timers.delete(lane);
        lanes.wake(lane);
        woken();
      }, wait);
      timer.unref();
      timers.set(lane, timer);
    },
    /** The lane's entry went (or is no longer this replica's): its next one is asked at once. */
    went(lane: string): void {
      waits.delete(lane);
      awaitedElsewhere.delete(lane);
    },
    /** The entries parked lanes wait for that are not in them, as of their last asking. */
    awaitedElsewhere: (): string[] => [...awaitedElsewhere.values()],
    /** At stop: no lane wakes any more (what they hold is let go of with the other waiting entries). */
    clear(): void {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      waits.clear();
      awaitedElsewhere.clear();
    },
  };
}

import type { WebhookLanes } from './webhook-lanes.js';

/** First wait of a lane whose head entry is held by another replica; doubles while it keeps waiting. */
export const MIN_PARKED_MS = 10;
/** Longest wait: how late, at most, a replica notices that the older entry another replica held is finished. */
export const MAX_PARKED_MS = 250;

/**
 * Lanes whose next entry has to wait for an older entry of its webhook that another replica holds
 * (webhook-order.ts). Such a lane hands out nothing (and holds no delivery slot) until its timer wakes
 * it; the timer doubles from `MIN_PARKED_MS` to `MAX_PARKED_MS` while the lane keeps waiting, so a
 * replica asks Redis at most a few times a second per waiting webhook.
 */
export function parkedLanes<T>(lanes: WebhookLanes<T>, woken: () => void) {
  const waits = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();
  return {
    /** `item` was taken from `lane` and could not go yet. */
    park(lane: string, item: T): void {
      lanes.putBack(lane, item);
      const wait = Math.min(MAX_PARKED_MS, (waits.get(lane) ?? MIN_PARKED_MS / 2) * 2);
      waits.set(lane, wait);
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
    },
    /** At stop: no lane wakes any more (what they hold is let go of with the other waiting entries). */
    clear(): void {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      waits.clear();
    },
  };
}

import type { TurnVerdict } from '../core/turn-verdict.js';

/** A stream's events while its sender may yet drop its turn (CallContext.turnVerdict). */
export interface HeldForVerdict {
  /** No verdict yet: the stream's events wait, unnotified. */
  holding(): boolean;
  /** The turn was dropped: nothing of it is notified, and its inline config is never stored. */
  dropped(): boolean;
  /** Keeps an event's notification (`notify`) of task `taskId` for the verdict. */
  hold(taskId: string, notify: () => void): void;
  /** The verdict, told by the sender, or taken at the stream's end (true: the turn went on as far as push can tell). */
  settle(taken: boolean): Promise<void> | undefined;
}

/**
 * Holds a stream's notifications for its turn's verdict: once the turn went on, `taken` stores the inline config
 * for the stream's task, and the held events are notified after it, in order; once it was dropped, neither.
 */
export function heldForVerdict(verdict: TurnVerdict, taken: (taskId: string) => Promise<void>): HeldForVerdict {
  let waiting: Array<() => void> = [];
  let taskId: string | undefined;
  let decided: boolean | undefined;
  const settle = (wentOn: boolean): Promise<void> | undefined => {
    if (decided !== undefined) return undefined;
    decided = wentOn;
    const held = waiting;
    waiting = [];
    if (!wentOn || taskId === undefined) return undefined;
    const stored = taken(taskId);
    for (const notify of held) notify();
    return stored;
  };
  verdict.onDecided(settle);
  return {
    holding: () => decided === undefined,
    dropped: () => decided === false,
    hold(id, notify) {
      taskId ??= id;
      waiting.push(notify);
    },
    settle,
  };
}

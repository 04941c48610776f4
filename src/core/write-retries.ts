/**
 * How a failed task-registry write is tried again (task-writer.ts): quickly at first, for a blip, then at a slower
 * pace until it lands or `forMs` has passed since its first failure, for an outage (a Redis restart or a Sentinel
 * failover lasts 10-60 s). A reader that must see the write (`hasten`) has it tried at once rather than wait for
 * its next time, and waits for that one try only, never for the whole outage.
 */
export interface RetryPace {
  /** The waits before each quick retry. */
  delaysMs: readonly number[];
  /** After the quick retries, the wait between tries. */
  everyMs: number;
  /** A write still failing this long after its first failure is given up (the quick retries are tried whatever). */
  forMs: number;
}

/** A write being tried again. */
export interface Retrying {
  /**
   * Tries the write now rather than at its next time (a try under way is not doubled); resolves once that try is
   * over: true when the write landed, false when it failed again or the retries are over.
   */
  hasten(): Promise<boolean>;
}

/** How the retries of a write ended: landed, or given up after `attempts` tries (the first included). */
export type RetryOutcome = { landed: true } | { landed: false; error: unknown; attempts: number };

export interface RetryHooks {
  /** The quick retries failed too: the write is tried on at the slower pace. */
  slow(error: unknown): void;
  /** The retries are over; called before any `hasten` resolves with their end, so a reader sees what it left. */
  over(outcome: RetryOutcome): void;
  /** The process stops: a failed try is the last one. */
  stopping(): boolean;
}

/** Tries `apply` again (its first try failed with `error`) at `pace`; resolves once the retries are over. */
export function retryWrite(
  apply: () => Promise<unknown>,
  error: unknown,
  pace: RetryPace,
  hooks: RetryHooks,
): { retrying: Retrying; over: Promise<void> } {
  let wake: (() => void) | undefined;
  /** Hastened before the wait began: the wait is skipped. */
  let hurry = false;
  let trying = false;
  let finished = false;
  let tried = deferred<boolean>();

  /** The wait before the next try, cut short by `hasten`; never holding a process that is stopping. */
  const waiting = (ms: number) =>
    new Promise<void>((resolve) => {
      if (hurry) return resolve();
      const timer = setTimeout(resolve, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  function end(outcome: RetryOutcome): void {
    finished = true;
    hooks.over(outcome);
    tried.resolve(outcome.landed);
  }

  async function run(): Promise<void> {
    const since = Date.now();
    for (let attempts = 1; ; attempts++) {
      const quick = attempts <= pace.delaysMs.length;
      const left = since + pace.forMs - Date.now();
      if (hooks.stopping() || (!quick && left <= 0)) return end({ landed: false, error, attempts });
      if (attempts === pace.delaysMs.length + 1) hooks.slow(error);
      await waiting(quick ? (pace.delaysMs[attempts - 1] ?? 0) : Math.min(pace.everyMs, left));
      wake = undefined;
      hurry = false;
      trying = true;
      try {
        await apply();
        return end({ landed: true });
      } catch (again) {
        error = again;
      } finally {
        trying = false;
      }
      const failed = tried;
      tried = deferred<boolean>();
      failed.resolve(false);
    }
  }

  return {
    retrying: {
      hasten() {
        if (finished) return Promise.resolve(false);
        if (!trying) {
          if (wake) wake();
          else hurry = true;
        }
        return tried.promise;
      },
    },
    // Begun a turn of the microtasks later: the caller holds `retrying` before any hook is called.
    over: Promise.resolve().then(run),
  };
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

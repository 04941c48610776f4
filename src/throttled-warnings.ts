import { withFields } from './model/with-fields.js';

/** Trouble that every call would report (a store that does not answer) is logged at most this often. */
export const WARN_EVERY_MS = 60_000;

export interface WarningLogger {
  warn(fields: object, message: string): void;
}

/**
 * Warnings told to `logger` at most once per `everyMs`: the ones in between are only counted, and the
 * next one told carries that count (`leftOut`), so a log shows how often the trouble came back without
 * a line per call.
 */
export function throttledWarnings(logger: WarningLogger | undefined, everyMs = WARN_EVERY_MS, now: () => number = Date.now): WarningLogger['warn'] {
  let toldAt = -Infinity;
  let leftOut = 0;
  return (fields, message) => {
    if (!logger) return;
    if (now() - toldAt < everyMs) {
      leftOut++;
      return;
    }
    toldAt = now();
    logger.warn(leftOut > 0 ? withFields(fields, { leftOut }) : fields, message);
    leftOut = 0;
  };
}

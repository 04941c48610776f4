/** Warnings for trouble every call would report, at most once a minute (throttled-warnings.ts), on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { throttledWarnings, WARN_EVERY_MS } from '../src/throttled-warnings.js';

function warnedTo() {
  const told: Array<{ fields: object; message: string }> = [];
  let time = 1_000_000;
  const warn = throttledWarnings({ warn: (fields, message) => void told.push({ fields, message }) }, WARN_EVERY_MS, () => time);
  return { told, warn, pass: (ms: number) => void (time += ms) };
}

describe('throttledWarnings', () => {
  it('tells the first warning, drops the rest of the minute, and says how many it left out with the next', () => {
    const { told, warn, pass } = warnedTo();
    warn({ attempt: 1 }, 'Redis did not answer');
    pass(1_000);
    warn({ attempt: 2 }, 'Redis did not answer');
    pass(WARN_EVERY_MS - 2_000);
    warn({ attempt: 3 }, 'a slot could not be given back');
    expect(told).toEqual([{ fields: { attempt: 1 }, message: 'Redis did not answer' }]);

    pass(1_000);
    warn({ attempt: 4 }, 'Redis did not answer');
    expect(told.at(-1)).toEqual({ fields: { attempt: 4, leftOut: 2 }, message: 'Redis did not answer' });
    pass(WARN_EVERY_MS);
    warn({ attempt: 5 }, 'Redis did not answer');
    expect(told.at(-1)).toEqual({ fields: { attempt: 5 }, message: 'Redis did not answer' });
    expect(told).toHaveLength(3);
  });

  it('is quiet without a logger', () => {
    expect(() => throttledWarnings(undefined)({}, 'nobody listens')).not.toThrow();
  });
});

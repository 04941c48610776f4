/**
 * settlesWithin: a wait bounded by a timer (a turn's let-go, a lane's read, a drain). What its callers rely on: the
 * answer says whether the promise settled in time, the timer never outlives that answer, and a rejection is the
 * caller's to see when it comes first (its callers pass promises that do not reject) and no one's when it comes late.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlesWithin } from '../src/settles-within.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('settlesWithin', () => {
  it('says true for a promise settled in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    let settle!: () => void;
    const answer = settlesWithin(new Promise<void>((resolve) => (settle = resolve)), 1_000);
    await vi.advanceTimersByTimeAsync(400);
    settle();
    await expect(answer).resolves.toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('says false once the time passed without it, and no later settling changes that', async () => {
    vi.useFakeTimers();
    let settle!: () => void;
    const answers: boolean[] = [];
    void settlesWithin(new Promise<void>((resolve) => (settle = resolve)), 1_000).then((settled) => answers.push(settled));
    await vi.advanceTimersByTimeAsync(999);
    expect(answers).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(answers).toEqual([false]);
    settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(answers).toEqual([false]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the promise's rejection when it comes first, its timer cleared", async () => {
    vi.useFakeTimers();
    const refused = new Error('refused');
    const answer = settlesWithin(Promise.reject(refused), 1_000);
    await expect(answer).rejects.toBe(refused);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('makes a rejection that comes after the time no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let refuse!: (error: Error) => void;
      const late = new Promise<void>((_, reject) => (refuse = reject));
      await expect(settlesWithin(late, 5)).resolves.toBe(false);
      refuse(new Error('late'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

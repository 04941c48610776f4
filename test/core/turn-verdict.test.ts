/**
 * A turn's verdict (turn-verdict.ts), decided on every attempt of a facade turn that may be sent again: its listeners
 * (push holding a stream's notifications) are told once and waited for; with none, deciding asks nothing to wait for.
 */
import { describe, expect, it } from 'vitest';
import { createTurnVerdict } from '../../src/core/turn-verdict.js';

describe('createTurnVerdict', () => {
  it('tells each listener the verdict once, and decide resolves only once every listener is done', async () => {
    const verdict = createTurnVerdict();
    const told: boolean[] = [];
    let finish: () => void = () => undefined;
    verdict.onDecided((taken) => void told.push(taken));
    verdict.onDecided((taken) => new Promise<void>((resolve) => (finish = () => (told.push(taken), resolve()))));
    let done = false;
    const deciding = verdict.decide(true)?.then(() => (done = true));
    expect(deciding).toBeDefined();
    await Promise.resolve();
    expect(done).toBe(false);
    finish();
    await deciding;
    expect(told).toEqual([true, true]);
    expect(verdict.decide(false)).toBeUndefined();
    expect(told).toEqual([true, true]);
  });

  it("a listener's failure fails decide", async () => {
    const verdict = createTurnVerdict();
    verdict.onDecided(() => {
      throw new Error('store down');
    });
    await expect(verdict.decide(true)).rejects.toThrow('store down');
  });

  it('with no listener, decide has nothing to wait for; a listener come later is told at once', () => {
    const verdict = createTurnVerdict();
    expect(verdict.decide(false)).toBeUndefined();
    const told: boolean[] = [];
    verdict.onDecided((taken) => void told.push(taken));
    expect(told).toEqual([false]);
  });
});

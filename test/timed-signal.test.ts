import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { timedSignal } from '../src/timed-signal.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** When `signal` aborts (ms after now), or undefined if not within `waitMs`, with garbage collections all along. */
function abortedAfter(signal: AbortSignal, waitMs: number): Promise<number | undefined> {
  const started = Date.now();
  return new Promise((resolve) => {
    const collecting = setInterval(gc, 10);
    const giveUp = setTimeout(() => done(undefined), waitMs);
    const done = (at: number | undefined): void => {
      clearInterval(collecting);
      clearTimeout(giveUp);
      resolve(at);
    };
    signal.addEventListener('abort', () => done(Date.now() - started), { once: true });
  });
}

describe('timedSignal', () => {
  it('aborts at its bound however often garbage is collected meanwhile (AbortSignal.any with AbortSignal.timeout did not)', async () => {
    const parent = new AbortController();
    // Only the listener's closure holds the derived signal, as a request that waits on it does. What is
    // checked is that it aborts at all (a dropped timer never does), not how soon: a loaded host runs late.
    const at = await abortedAfter(timedSignal(parent.signal, 100).signal, 10_000);
    expect(at).toBeDefined();
    expect(at).toBeGreaterThanOrEqual(95);
  });

  it("the bound's reason is a TimeoutError; the parent's abort comes with the parent's reason", async () => {
    const bounded = timedSignal(undefined, 20);
    await abortedAfter(bounded.signal, 1_000);
    expect((bounded.signal.reason as DOMException).name).toBe('TimeoutError');
    const parent = new AbortController();
    const derived = timedSignal(parent.signal, 60_000);
    parent.abort(new Error('caller left'));
    expect(derived.signal.aborted).toBe(true);
    expect((derived.signal.reason as Error).message).toBe('caller left');
    derived.clear();
    const early = new AbortController();
    early.abort('gone');
    expect(timedSignal(early.signal, 0).signal.reason).toBe('gone');
  });

  it('cleared: neither the bound nor the parent aborts it any more; 0 is no bound', async () => {
    const parent = new AbortController();
    const cleared = timedSignal(parent.signal, 30);
    cleared.clear();
    parent.abort();
    expect(await abortedAfter(cleared.signal, 150)).toBeUndefined();
    expect(await abortedAfter(timedSignal(undefined, 0).signal, 100)).toBeUndefined();
  });
});

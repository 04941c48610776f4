import { describe, expect, it } from 'vitest';
import { MAX_OUTLIVING_PER_CALLER, outlivingCall, outlivingCallsEnded } from '../../../src/surfaces/shared/outliving-calls.js';

describe('calls carried on after their caller left', () => {
  it('are counted per caller up to the cap: past it a call is not carried on; one that ends gives its place back', () => {
    const shutdown = new AbortController().signal;
    const mine = Array.from({ length: MAX_OUTLIVING_PER_CALLER }, () => outlivingCall(shutdown, 'alice'));
    expect(mine.every((release) => typeof release === 'function')).toBe(true);
    expect(outlivingCall(shutdown, 'alice')).toBeUndefined();
    // Another caller has its own share.
    expect(outlivingCall(shutdown, 'bob')).toBeTypeOf('function');
    mine[0]!();
    mine[0]!();
    expect(outlivingCall(shutdown, 'alice')).toBeTypeOf('function');
    expect(outlivingCall(shutdown, 'alice')).toBeUndefined();
  });

  it('a shutdown waits until every counted call has ended', async () => {
    const shutdown = new AbortController().signal;
    await outlivingCallsEnded(shutdown);
    const first = outlivingCall(shutdown, 'alice')!;
    const second = outlivingCall(shutdown, 'bob')!;
    let ended = false;
    const waiting = outlivingCallsEnded(shutdown).then(() => (ended = true));
    first();
    await Promise.resolve();
    expect(ended).toBe(false);
    second();
    await waiting;
    expect(ended).toBe(true);
  });
});

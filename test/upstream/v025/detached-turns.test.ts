/**
 * The count of returnImmediately turns read in the background (upstream/v025/immediate.ts): how many, and how a message
 * going on with a task that finds them at their count waits, and stops waiting.
 */
import { describe, expect, it, vi } from 'vitest';
import type { StreamResponse } from '../../../src/model/index.js';
import { createDetachedTurns, detachedReadLimit } from '../../../src/upstream/v025/immediate.js';
import { rejection } from '../../support/rejection.js';
import { ctx } from '../support.js';

const WORKING: StreamResponse = { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };

/** Turns that open with WORKING and end at `finishAll` or when the gateway ends their read; `opened` counts those begun. */
function agent(): { open: (signal: AbortSignal) => AsyncIterable<StreamResponse>; opened: () => number; finishAll(): void } {
  let opened = 0;
  let finishAll = (): void => undefined;
  let finished = new Promise<void>((resolve) => (finishAll = resolve));
  return {
    opened: () => opened,
    finishAll: () => {
      finishAll();
      finished = new Promise<void>((resolve) => (finishAll = resolve));
    },
    async *open(signal) {
      opened++;
      yield WORKING;
      await Promise.race([finished, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
    },
  };
}

const goingOn = (boundMs = 0) => ({ boundMs, waitForRoom: true });

describe('turns read in the background', () => {
  it('are at most half of upstream.connections, one with a single connection, and 100 without a cap', () => {
    expect([1, 2, 3, 10].map(detachedReadLimit)).toEqual([1, 1, 1, 5]);
    expect([undefined, 0].map(detachedReadLimit)).toEqual([100, 100]);
  });

  it('a message going on with a task that finds no read ending within its bound fails as timed out, never sent', async () => {
    const { open, opened } = agent();
    const turns = createDetachedTurns({ limit: 1, onFull: vi.fn() });
    await turns.firstEvent(open, ctx(), goingOn());
    const failure = await rejection(turns.firstEvent(open, ctx(), goingOn(100)));
    expect(failure.message).toMatch(/^Upstream agent timed out: .*the message was not sent$/);
    expect(opened()).toBe(1);
    await turns.close();
  });

  it('a caller that leaves while waiting is never sent, and the place of a read that ends goes to the next one waiting', async () => {
    const { open, opened, finishAll } = agent();
    const turns = createDetachedTurns({ limit: 1, onFull: vi.fn() });
    await turns.firstEvent(open, ctx(), goingOn());
    const caller = new AbortController();
    const left = rejection(turns.firstEvent(open, ctx({ signal: caller.signal }), goingOn()));
    const next = turns.firstEvent(open, ctx(), goingOn());
    caller.abort();
    expect((await left).message).toBe('The upstream call was aborted');
    expect(opened()).toBe(1);

    finishAll();
    expect(await next).toEqual(WORKING);
    expect(opened()).toBe(2);
    await turns.close();
  });

  it('a gateway that stops ends the waits as well as the reads', async () => {
    const { open, opened } = agent();
    const turns = createDetachedTurns({ limit: 1, onFull: vi.fn() });
    await turns.firstEvent(open, ctx(), goingOn());
    const waiting = rejection(turns.firstEvent(open, ctx(), goingOn()));
    await turns.close();
    expect((await waiting).message).toBe('The gateway is shutting down');
    expect(opened()).toBe(1);
  });
});

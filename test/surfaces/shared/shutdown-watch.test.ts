import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { untilShutdown } from '../../../src/surfaces/shared/shutdown-watch.js';

describe('untilShutdown', () => {
  it('puts one listener on the signal for any number of watchers, and runs each live one once', () => {
    const shutdown = new AbortController();
    const callbacks = Array.from({ length: 50 }, () => vi.fn());
    const stops = callbacks.map((callback) => untilShutdown(shutdown.signal, callback));
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    stops[0]!();
    shutdown.abort();
    shutdown.abort();
    expect(callbacks[0]).not.toHaveBeenCalled();
    for (const callback of callbacks.slice(1)) expect(callback).toHaveBeenCalledTimes(1);
  });

  it('runs at once for a signal that already aborted', () => {
    const shutdown = new AbortController();
    shutdown.abort();
    const callback = vi.fn();
    untilShutdown(shutdown.signal, callback);
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it('keeps the watchers of different signals apart', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const [onA, onB] = [vi.fn(), vi.fn()];
    untilShutdown(a.signal, onA);
    untilShutdown(b.signal, onB);
    a.abort();
    expect(onA).toHaveBeenCalledTimes(1);
    expect(onB).not.toHaveBeenCalled();
  });
});

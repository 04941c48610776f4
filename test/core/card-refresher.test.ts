import { afterEach, describe, expect, it, vi } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { createCardRefresher } from '../../src/core/card-refresher.js';
import type { CardSnapshot } from '../../src/core/card-source.js';
import type { AgentCard } from '../../src/model/index.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { startFakeIacCode } from '../support/fake-iac-code.js';

const card = (version: string): AgentCard => ({
  name: 'agent',
  description: 'd',
  version,
  supportedInterfaces: [{ url: 'http://a/', protocolBinding: 'JSONRPC' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

/** A card source whose next answers the test scripts. */
function scriptedSource(answers: Array<AgentCard | Error>) {
  const calls: Array<AbortSignal | undefined> = [];
  return {
    calls,
    async fetchCard(signal?: AbortSignal): Promise<AgentCard> {
      calls.push(signal);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createCardRefresher', () => {
  it('start() resolves even when the first fetch fails, recording unreachable', async () => {
    const refresher = createCardRefresher(scriptedSource([new Error('down')]), { intervalMs: 0 });
    await expect(refresher.start()).resolves.toBeUndefined();
    expect(refresher.current()).toBeUndefined();
    expect(refresher.upstreamReachable()).toBe(false);
    refresher.stop();
  });

  it('keeps the last good card when a refresh fails, and flips reachability back on recovery', async () => {
    const refresher = createCardRefresher(scriptedSource([card('1'), new Error('down'), card('1')]), { intervalMs: 0 });
    await refresher.start();
    expect(refresher.upstreamReachable()).toBe(true);
    expect(refresher.current()?.card.version).toBe('1');

    await refresher.refreshNow();
    expect(refresher.upstreamReachable()).toBe(false);
    expect(refresher.current()?.card.version).toBe('1');

    await refresher.refreshNow();
    expect(refresher.upstreamReachable()).toBe(true);
    refresher.stop();
  });

  it('calls onChange only when the card JSON changed', async () => {
    const refresher = createCardRefresher(scriptedSource([card('1'), card('1'), new Error('x'), card('2'), card('2')]), {
      intervalMs: 0,
    });
    const seen: CardSnapshot[] = [];
    refresher.onChange((snapshot) => seen.push(snapshot));
    await refresher.start();
    for (let i = 0; i < 4; i++) await refresher.refreshNow();
    expect(seen.map((s) => s.card.version)).toEqual(['1', '2']);
    expect(seen[1]?.fetchedAt).toBeInstanceOf(Date);
    refresher.stop();
  });

  it('refreshes in the background on its interval, and stop() ends that', async () => {
    vi.useFakeTimers();
    const source = scriptedSource([card('1'), card('2'), card('3'), card('4')]);
    const refresher = createCardRefresher(source, { intervalMs: 1_000 });
    await refresher.start();
    expect(source.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refresher.current()?.card.version).toBe('2');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refresher.current()?.card.version).toBe('3');
    refresher.stop();
    expect(source.calls.at(-1)?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(source.calls).toHaveLength(3);
  });

  it('shares one fetch between concurrent refreshNow() calls', async () => {
    const source = scriptedSource([card('1'), card('2')]);
    const refresher = createCardRefresher(source, { intervalMs: 0 });
    await Promise.all([refresher.refreshNow(), refresher.refreshNow(), refresher.refreshNow()]);
    expect(source.calls).toHaveLength(1);
    refresher.stop();
  });

  it('works with the real upstream client and the fake iac-code', async () => {
    const fake = await startFakeIacCode();
    const upstream = createV1Upstream({ baseUrl: fake.url, config: UpstreamConfig.parse({}) });
    const refresher = createCardRefresher(upstream, { intervalMs: 0 });
    try {
      await refresher.start();
      expect(refresher.current()?.card.name).toBe('iac-code');
      expect(upstream.endpoint()).toBe(`${fake.url}/`);
      fake.injectFault('http-500', { route: 'card' });
      await refresher.refreshNow();
      expect(refresher.upstreamReachable()).toBe(false);
      expect(refresher.current()?.card.name).toBe('iac-code');
    } finally {
      refresher.stop();
      await upstream.close();
      await fake.close();
    }
  });
});

describe('card refresh after a failure', () => {
  it('retries with backoff from 1 s up to the interval, then returns to the interval once it succeeds', async () => {
    vi.useFakeTimers();
    const down = () => new Error('down');
    const source = scriptedSource([down(), down(), down(), down(), down(), card('1'), card('2')]);
    const refresher = createCardRefresher(source, { intervalMs: 10_000 });
    await refresher.start();
    expect(refresher.upstreamReachable()).toBe(false);
    const attemptsAt = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return source.calls.length;
    };
    // Waits of 1 s, 2 s, 4 s, 8 s, then capped at the 10 s interval.
    expect(await attemptsAt(999)).toBe(1);
    expect(await attemptsAt(1)).toBe(2);
    expect(await attemptsAt(2_000)).toBe(3);
    expect(await attemptsAt(4_000)).toBe(4);
    expect(await attemptsAt(7_999)).toBe(4);
    expect(await attemptsAt(1)).toBe(5);
    expect(await attemptsAt(10_000)).toBe(6);
    expect(refresher.upstreamReachable()).toBe(true);
    expect(refresher.current()?.card.version).toBe('1');
    // Recovered: the next refresh waits the whole interval again.
    expect(await attemptsAt(9_999)).toBe(6);
    expect(await attemptsAt(1)).toBe(7);
    refresher.stop();
  });

  it('a gateway whose upstream starts late is ready within seconds, not after the refresh interval', async () => {
    vi.useFakeTimers();
    let up = false;
    const refresher = createCardRefresher(
      { fetchCard: async () => (up ? card('1') : Promise.reject(new Error('ECONNREFUSED'))) },
      { intervalMs: 60_000 },
    );
    await refresher.start();
    expect(refresher.upstreamReachable()).toBe(false);
    await vi.advanceTimersByTimeAsync(3_000);
    up = true;
    await vi.advanceTimersByTimeAsync(4_000);
    expect(refresher.upstreamReachable()).toBe(true);
    refresher.stop();
  });
});

describe('a first fetch that does not answer', () => {
  it('start() resolves after startWaitMs, unreachable; the fetch goes on and the timer starts once it ends', async () => {
    vi.useFakeTimers();
    let answer: ((card: AgentCard) => void) | undefined;
    const calls: Array<AbortSignal | undefined> = [];
    const source = {
      fetchCard: (signal?: AbortSignal) => {
        calls.push(signal);
        return calls.length === 1 ? new Promise<AgentCard>((resolve) => (answer = resolve)) : Promise.resolve(card(String(calls.length)));
      },
    };
    const refresher = createCardRefresher(source, { intervalMs: 10_000, startWaitMs: 2_000 });
    let started = false;
    void refresher.start().then(() => (started = true));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(started).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(true);
    expect(refresher.upstreamReachable()).toBe(false);
    expect(refresher.current()).toBeUndefined();
    // No second fetch while the first is pending, however long it takes.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(calls).toHaveLength(1);
    answer?.(card('1'));
    await vi.advanceTimersByTimeAsync(0);
    expect(refresher.upstreamReachable()).toBe(true);
    expect(refresher.current()?.card.version).toBe('1');
    // The interval counts from the end of that first fetch.
    await vi.advanceTimersByTimeAsync(9_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    refresher.stop();
    expect(calls[0]?.aborted).toBe(true);
  });

  it('stop() during the first fetch aborts it and schedules nothing', async () => {
    vi.useFakeTimers();
    const calls: Array<AbortSignal | undefined> = [];
    const source = {
      fetchCard: (signal?: AbortSignal) => {
        calls.push(signal);
        return new Promise<AgentCard>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
      },
    };
    const refresher = createCardRefresher(source, { intervalMs: 1_000, startWaitMs: 500 });
    await Promise.all([refresher.start(), vi.advanceTimersByTimeAsync(500)]);
    refresher.stop();
    expect(calls[0]?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(1);
  });
});

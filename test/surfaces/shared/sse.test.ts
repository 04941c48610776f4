import { afterEach, describe, expect, it, vi } from 'vitest';
import { mapIterable } from '../../../src/core/iterables.js';
import { encodeFrame, pullFirst, sseResponse, type SseFrame } from '../../../src/surfaces/shared/sse.js';
import { fromArray } from '../support.js';

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A source whose next() waits on the test; records return(). */
function manualSource() {
  const pending: Array<(result: IteratorResult<SseFrame>) => void> = [];
  const returned = vi.fn(async () => ({ done: true as const, value: undefined }));
  const source: AsyncIterable<SseFrame> = {
    [Symbol.asyncIterator]: () => ({
      next: () => new Promise<IteratorResult<SseFrame>>((resolve) => pending.push(resolve)),
      return: returned,
    }),
  };
  const settle = (result: IteratorResult<SseFrame>) => {
    const resolve = pending.shift();
    if (!resolve) throw new Error('nobody is waiting on the source');
    resolve(result);
  };
  return {
    source,
    returned,
    waiting: () => pending.length,
    push: (frame: SseFrame) => settle({ done: false, value: frame }),
    end: () => settle({ done: true, value: undefined }),
  };
}

afterEach(() => vi.useRealTimers());
// Only the keepalive interval (and its clock) is faked, so promise helpers like vi.waitFor keep working.
const fakeIntervals = () => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });

describe('encodeFrame', () => {
  it('writes an optional event line, one data line per payload line, and a blank line', () => {
    expect(decode(encodeFrame({ data: '{"a":1}' }))).toBe('data: {"a":1}\n\n');
    expect(decode(encodeFrame({ event: 'error', data: 'one\ntwo\r\nthree' }))).toBe('event: error\ndata: one\ndata: two\ndata: three\n\n');
  });
});

describe('sseResponse', () => {
  it('writes frames, then closes when the source ends, clearing the keepalive timer', async () => {
    fakeIntervals();
    const response = sseResponse(fromArray([{ data: 'a' }, { data: 'b', event: 'x' }]), { keepaliveMs: 1000, onError: () => undefined });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('connection')).toBe('keep-alive');
    expect(await response.text()).toBe('data: a\n\nevent: x\ndata: b\n\n');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('pings while waiting for the source', async () => {
    fakeIntervals();
    const manual = manualSource();
    const reader = sseResponse(manual.source, { keepaliveMs: 1000, onError: () => undefined }).body!.getReader();
    vi.advanceTimersByTime(1000);
    expect(decode((await reader.read()).value)).toMatch(/^: ping \d{4}-.*Z\n\n$/);
    await vi.waitFor(() => expect(manual.waiting()).toBe(1));
    manual.push({ data: 'late' });
    expect(decode((await reader.read()).value)).toBe('data: late\n\n');
    await vi.waitFor(() => expect(manual.waiting()).toBe(1));
    manual.end();
    expect((await reader.read()).done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('open streams share one keepalive timer; the last one to end stops it', async () => {
    fakeIntervals();
    const first = manualSource();
    const second = manualSource();
    const a = sseResponse(first.source, { keepaliveMs: 1000, onError: () => undefined }).body!.getReader();
    const b = sseResponse(second.source, { keepaliveMs: 1000, onError: () => undefined }).body!.getReader();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1000);
    const [pingA, pingB] = [decode((await a.read()).value), decode((await b.read()).value)];
    expect(pingA).toMatch(/^: ping /);
    expect(pingB).toBe(pingA);
    await a.cancel();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(decode((await b.read()).value)).toMatch(/^: ping /);
    await vi.waitFor(() => expect(second.waiting()).toBe(1));
    second.end();
    expect((await b.read()).done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('on reader cancel: calls onCancel and the source return(), stops pinging', async () => {
    fakeIntervals();
    const manual = manualSource();
    const onCancel = vi.fn();
    const reader = sseResponse(manual.source, { keepaliveMs: 500, onError: () => undefined, onCancel }).body!.getReader();
    await reader.cancel();
    await vi.waitFor(() => expect(manual.returned).toHaveBeenCalledTimes(1));
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('on request signal abort: calls onCancel and return(), and ends the body', async () => {
    const manual = manualSource();
    const onCancel = vi.fn();
    const client = new AbortController();
    const reader = sseResponse(manual.source, { keepaliveMs: 0, signal: client.signal, onError: () => undefined, onCancel }).body!.getReader();
    client.abort();
    expect((await reader.read()).done).toBe(true);
    await vi.waitFor(() => expect(manual.returned).toHaveBeenCalledTimes(1));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('on shutdown: every open stream ends with onError(reason) and returns its source; a finished one is left alone', async () => {
    const shutdown = new AbortController();
    const options = (onCancel: () => void) => ({
      keepaliveMs: 0,
      shutdown: shutdown.signal,
      onCancel,
      onError: (error: unknown) => ({ event: 'error', data: String(error) }),
    });
    const [one, two] = [manualSource(), manualSource()];
    const [cancelOne, cancelTwo, cancelDone] = [vi.fn(), vi.fn(), vi.fn()];
    const a = sseResponse(one.source, options(cancelOne)).body!.getReader();
    const b = sseResponse(two.source, options(cancelTwo)).body!.getReader();
    expect(await sseResponse(fromArray([{ data: 'x' }]), options(cancelDone)).text()).toBe('data: x\n\n');
    shutdown.abort('closing');
    for (const reader of [a, b]) {
      expect(decode((await reader.read()).value)).toBe('event: error\ndata: closing\n\n');
      expect((await reader.read()).done).toBe(true);
    }
    await vi.waitFor(() => expect(one.returned).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(two.returned).toHaveBeenCalledTimes(1));
    expect([cancelOne.mock.calls.length, cancelTwo.mock.calls.length, cancelDone.mock.calls.length]).toEqual([1, 1, 0]);
  });

  it('renders a source failure with onError and closes; a failing onError just closes', async () => {
    async function* failing(): AsyncGenerator<SseFrame> {
      yield { data: 'first' };
      throw new Error('boom');
    }
    const onError = vi.fn((error: unknown) => ({ event: 'error', data: String((error as Error).message) }));
    expect(await sseResponse(failing(), { keepaliveMs: 0, onError }).text()).toBe('data: first\n\nevent: error\ndata: boom\n\n');
    const throwing = () => {
      throw new Error('renderer broke');
    };
    expect(await sseResponse(failing(), { keepaliveMs: 0, onError: throwing }).text()).toBe('data: first\n\n');
  });
});

describe('pullFirst', () => {
  it('reads the first item eagerly and replays it', async () => {
    const source = vi.fn(async function* () {
      yield 1;
      yield 2;
    });
    const { first, rest } = await pullFirst(source());
    expect(first).toBe(1);
    const seen: number[] = [];
    for await (const item of rest) seen.push(item);
    expect(seen).toEqual([1, 2]);
  });

  it('reports an empty source', async () => {
    const { first, rest } = await pullFirst(fromArray<number>([]));
    expect(first).toBeUndefined();
    const seen: number[] = [];
    for await (const item of rest) seen.push(item);
    expect(seen).toEqual([]);
  });

  it('rejects when the source fails before its first item', async () => {
    // eslint-disable-next-line require-yield
    async function* failing(): AsyncGenerator<number> {
      throw new Error('early');
    }
    await expect(pullFirst(failing())).rejects.toThrow('early');
  });

  it('forwards return() to the source, through mapIterable too', async () => {
    let finallyRan = false;
    async function* source() {
      try {
        yield 1;
        yield 2;
      } finally {
        finallyRan = true;
      }
    }
    const { rest } = await pullFirst(source());
    for await (const item of mapIterable(rest, (n) => n * 10)) {
      expect(item).toBe(10);
      break;
    }
    expect(finallyRan).toBe(true);
  });
});

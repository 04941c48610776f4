import { afterEach, describe, expect, it, vi } from 'vitest';
import { mapIterable } from '../../../src/core/iterables.js';
import { encodeFrame, pullFirst, sseResponse, type SseFrame } from '../../../src/surfaces/shared/sse.js';
import { A2AError, ErrorCode } from '../../../src/model/index.js';
import { fromArray } from '../support.js';
import { unhandledRejectionsDuring } from '../../support/unhandled-rejections.js';

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A source whose next() waits on the test; records return(). */
function manualSource() {
  const pending: Array<{ resolve: (result: IteratorResult<SseFrame>) => void; reject: (error: unknown) => void }> = [];
  const returned = vi.fn(async () => ({ done: true as const, value: undefined }));
  const source: AsyncIterable<SseFrame> = {
    [Symbol.asyncIterator]: () => ({
      next: () => new Promise<IteratorResult<SseFrame>>((resolve, reject) => pending.push({ resolve, reject })),
      return: returned,
    }),
  };
  const waiter = () => {
    const next = pending.shift();
    if (!next) throw new Error('nobody is waiting on the source');
    return next;
  };
  const settle = (result: IteratorResult<SseFrame>) => waiter().resolve(result);
  return {
    source,
    returned,
    waiting: () => pending.length,
    push: (frame: SseFrame) => settle({ done: false, value: frame }),
    end: () => settle({ done: true, value: undefined }),
    fail: (error: unknown) => waiter().reject(error),
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

  it('renders a source failure with onError and closes', async () => {
    async function* failing(): AsyncGenerator<SseFrame> {
      yield { data: 'first' };
      throw new Error('boom');
    }
    const onError = vi.fn((error: unknown) => ({ event: 'error', data: String((error as Error).message) }));
    const onCancel = vi.fn();
    expect(await sseResponse(failing(), { keepaliveMs: 0, onError, onCancel }).text()).toBe('data: first\n\nevent: error\ndata: boom\n\n');
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('an onError that throws on the failure: its frames for a plain -32603 instead, then the upstream call is aborted and the source returned', async () => {
    const manual = manualSource();
    const onCancel = vi.fn();
    const onError = (error: unknown) => {
      if (!(error instanceof A2AError) || error.code !== ErrorCode.Internal) throw error;
      return { event: 'error', data: `${error.code} ${error.message}` };
    };
    const reader = sseResponse(manual.source, { keepaliveMs: 0, onError, onCancel }).body!.getReader();
    const unhandled = await unhandledRejectionsDuring(async () => {
      const first = reader.read();
      await vi.waitFor(() => expect(manual.waiting()).toBe(1));
      manual.push({ data: 'first' });
      expect(decode((await first).value)).toBe('data: first\n\n');
      await vi.waitFor(() => expect(manual.waiting()).toBe(1));
      manual.fail('not an Error, not renderable');
      expect(decode((await reader.read()).value)).toBe('event: error\ndata: -32603 Internal error\n\n');
      expect((await reader.read()).done).toBe(true);
      await vi.waitFor(() => expect(manual.returned).toHaveBeenCalledTimes(1));
    }, 20);
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(unhandled).toEqual([]);
  });

  it('an onError that throws whatever it is given: the stream just closes, and the upstream call is aborted', async () => {
    async function* failing(): AsyncGenerator<SseFrame> {
      yield { data: 'first' };
      throw new Error('boom');
    }
    const throwing = () => {
      throw new Error('renderer broke');
    };
    const onCancel = vi.fn();
    expect(await sseResponse(failing(), { keepaliveMs: 0, onError: throwing, onCancel }).text()).toBe('data: first\n\n');
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('a shutdown whose onError throws: the frames of a plain -32603', async () => {
    const manual = manualSource();
    const shutdown = new AbortController();
    const onError = (error: unknown) => {
      if (!(error instanceof A2AError)) throw new Error('renderer broke');
      return { event: 'error', data: error.message };
    };
    const reader = sseResponse(manual.source, { keepaliveMs: 0, shutdown: shutdown.signal, onError }).body!.getReader();
    shutdown.abort('closing');
    expect(decode((await reader.read()).value)).toBe('event: error\ndata: Internal error\n\n');
    expect((await reader.read()).done).toBe(true);
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

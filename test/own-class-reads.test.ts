import { describe, expect, it } from 'vitest';
import { offAborted, onceAborted, readerOf } from '../src/own-class-reads.js';

describe('own-class-reads: the methods of AbortSignal and ReadableStream, read from their prototype', () => {
  it('onceAborted calls its listener once, when the signal aborts, with the signal aborted by then', () => {
    const controller = new AbortController();
    const seen: boolean[] = [];
    onceAborted(controller.signal, () => seen.push(controller.signal.aborted));
    expect(seen).toEqual([]);
    controller.abort();
    controller.abort();
    expect(seen).toEqual([true]);
  });

  it('runs listeners in the order they were added, as the signal’s own addEventListener does', () => {
    const controller = new AbortController();
    const order: string[] = [];
    controller.signal.addEventListener('abort', () => order.push('before'), { once: true });
    onceAborted(controller.signal, () => order.push('own'));
    controller.signal.addEventListener('abort', () => order.push('after'), { once: true });
    controller.abort();
    expect(order).toEqual(['before', 'own', 'after']);
  });

  it('offAborted takes the listener off: an abort after it calls nothing', () => {
    const controller = new AbortController();
    let calls = 0;
    const listener = (): void => void calls++;
    onceAborted(controller.signal, listener);
    offAborted(controller.signal, listener);
    controller.abort();
    expect(calls).toBe(0);
  });

  it('adding the same listener twice adds it once, as addEventListener does', () => {
    const controller = new AbortController();
    let calls = 0;
    const listener = (): void => void calls++;
    onceAborted(controller.signal, listener);
    onceAborted(controller.signal, listener);
    controller.abort();
    expect(calls).toBe(1);
  });

  it('readerOf reads a request body to its end, and locks it as getReader does', async () => {
    const request = new Request('http://gateway.test/', { method: 'POST', body: 'a body of a few words' });
    const reader = readerOf(request.body!);
    expect(request.body!.locked).toBe(true);
    const chunks: Uint8Array[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    expect(Buffer.concat(chunks).toString()).toBe('a body of a few words');
  });
});

import { afterEach, expect, it } from 'vitest';
import { SseChannel } from '../../../src/surfaces/shared/sse-channel.js';
import type { SseFrame } from '../../../src/surfaces/shared/sse-frames.js';

/** A source that never yields: the stream stays open until the test ends it. */
function silentSource(): AsyncIterable<SseFrame> {
  return { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<SseFrame>>(() => undefined) }) };
}

const detached: Array<(...args: unknown[]) => void> = [];
afterEach(() => {
  for (const listener of detached.splice(0)) process.on('unhandledRejection', listener);
});

/**
 * The rejections nobody handled while `run` ran, with the test runner's own listeners off meanwhile: a rejection
 * is expected here, which the runner would report as the run's error.
 */
async function rejectionsAlone(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const note = (reason: unknown): void => void seen.push(reason);
  detached.push(...(process.listeners('unhandledRejection') as Array<(...args: unknown[]) => void>));
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', note);
  try {
    await run();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', note);
    for (const listener of detached.splice(0)) process.on('unhandledRejection', listener);
  }
  return seen;
}

it('what is queued in one turn while the writer waits goes out as one text: a shutdown’s last frames together', async () => {
  const shutdown = new AbortController();
  const channel = new SseChannel(silentSource(), {
    keepaliveMs: 0,
    shutdown: shutdown.signal,
    onError: (reason) => [
      { event: 'error', data: String(reason) },
      { event: 'end', data: 'bye' },
    ],
  });
  const waiting = channel.read();
  shutdown.abort('closing');
  expect(await waiting).toBe('event: error\ndata: closing\n\nevent: end\ndata: bye\n\n');
  expect(await channel.read()).toBeNull();
});

it('an end observer that throws as the waiting writer is woken: the stream ends, and the throw is an unhandled rejection (serve.ts logs it), not an uncaught exception', async () => {
  const shutdown = new AbortController();
  const channel = new SseChannel(silentSource(), { keepaliveMs: 0, shutdown: shutdown.signal, onError: () => undefined });
  const broken = new Error('an observer’s bug');
  channel.observe({
    end: () => {
      throw broken;
    },
  });
  let ended: Promise<string | null> | undefined;
  const rejections = await rejectionsAlone(async () => {
    ended = channel.read();
    shutdown.abort('closing');
  });
  expect(rejections).toEqual([broken]);
  // The writer is not left waiting: the stream ends for it all the same.
  expect(await ended).toBeNull();
});

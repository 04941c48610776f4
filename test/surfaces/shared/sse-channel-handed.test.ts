import { afterEach, expect, it, vi } from 'vitest';
import { SseChannel } from '../../../src/surfaces/shared/sse-channel.js';
import type { SseFrame } from '../../../src/surfaces/shared/sse-frames.js';

afterEach(() => vi.useRealTimers());

it('a keep-alive read after a frame leaves that frame to be told as written (it is not shown again)', async () => {
  vi.useFakeTimers();
  let stop!: () => void;
  const held = new Promise<void>((resolve) => (stop = resolve));
  async function* frames(): AsyncGenerator<SseFrame> {
    yield { data: 'first', mark: 1 };
    await held;
  }
  const channel = new SseChannel(frames(), { keepaliveMs: 10, onWritten: () => undefined, onError: () => undefined });
  expect(await channel.read()).toContain('first');
  const ping = channel.read();
  await vi.advanceTimersByTimeAsync(10);
  expect(await ping).toMatch(/^:/);
  // The writer asks what its last writes held once a loop turn has passed: the frame, not nothing.
  expect(channel.takeWritten()?.mark).toBe(1);
  stop();
  channel.cancel();
});

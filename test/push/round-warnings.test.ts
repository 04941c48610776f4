/**
 * While its Redis is away the push queue's worker fails a round every half second: that is told once per
 * interval (the connection's own errors' interval, REDIS_WARN_EVERY_MS), the rounds in between counted,
 * not a warning each.
 */
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import type { PushLogger } from '../../src/push/queue/types.js';

/** A local port nothing listens on: Redis "down", refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function capturing(): PushLogger & { warnings: Array<{ fields: object; message: string }> } {
  const warnings: Array<{ fields: object; message: string }> = [];
  return { warnings, info() {}, error() {}, warn: (fields, message) => void warnings.push({ fields, message }) };
}

it('a worker whose Redis is down warns of its failed rounds once per interval, not every round', async () => {
  const logger = capturing();
  const queue = createRedisStreamsQueue({
    url: `redis://127.0.0.1:${await closedPort()}`,
    stream: 'round-warnings:s',
    retryKey: 'round-warnings:r',
    deadStream: 'round-warnings:d',
    group: 'g',
    leaseTimeoutMs: 60_000,
    blockMs: 50,
    logger,
  });
  queue.start(() => Promise.resolve({ outcome: 'delivered' }));
  try {
    // A round fails and waits at most 500 ms before the next: a few of them in this time.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } finally {
    await queue.stop();
  }
  const rounds = logger.warnings.filter((warning) => warning.message === 'A2A push queue worker round failed');
  expect(rounds).toHaveLength(1);
  expect(rounds[0]!.fields).toMatchObject({ store: 'push-queue' });
}, 10_000);

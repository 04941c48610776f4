/**
 * firstAttemptSettled: what the gateway waits for before it listens with `store: redis`. It settles once the
 * first connection is ready or failed, and never later than the connect timeout (a Redis that takes the
 * connection and never answers), so that a start is not held by a Redis out of reach.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { firstAttemptSettled } from '../../src/redis/first-attempt.js';
import { CLOSED_PORT } from '../support/free-port.js';

const opened: Redis[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const redis of opened.splice(0)) redis.disconnect();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
const connect = (url: string, connectTimeout?: number): Redis => {
  const redis = new Redis(url, { ...(connectTimeout ? { connectTimeout } : {}), maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  opened.push(redis);
  return redis;
};

it('a healthy Redis: settles once the connection is ready, and at once after that', async () => {
  const redis = connect('redis://127.0.0.1:6379');
  expect(redis.status).not.toBe('ready');
  await firstAttemptSettled(redis);
  expect(redis.status).toBe('ready');
  await firstAttemptSettled(redis);
});

it('a port nothing listens on: settles once the first attempt failed', async () => {
  const redis = connect(`redis://127.0.0.1:${CLOSED_PORT}`);
  await firstAttemptSettled(redis);
  expect(redis.status).not.toBe('ready');
});

it('a Redis that takes the connection and never answers: settles after the connect timeout', async () => {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as { port: number };
  const redis = connect(`redis://127.0.0.1:${port}`, 300);
  const started = Date.now();
  await firstAttemptSettled(redis);
  // After the 300 ms given, not ioredis's own 10 s: half of that, which a busy host does not reach.
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(redis.status).not.toBe('ready');
});

/**
 * Redis going away under a gateway with `store: redis` (registry, turn lanes, task aliases, push configs
 * and queue): `/ready` answers 503 while it is gone and 200 once it is back, a call meanwhile gets a
 * JSON-RPC error instead of hanging, and no Redis client prints "Unhandled error event" stack traces.
 * A redis-server of the test's own, so it can be killed and started again on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { waitUntil } from '../../support/wait-until.js';
import { rpc } from '../../demo-agent/helpers.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let port: number;
let redisServer: ChildProcess | undefined;
let gateway: TestGateway | undefined;
const consoleErrors = vi.spyOn(console, 'error');

async function startRedis(): Promise<void> {
  redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redisServer.once('error', (error) => {
    throw new Error(`this test runs redis-server itself: ${error.message}`);
  });
  const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  try {
    await waitUntil(async () => (await probe.ping()) === 'PONG');
  } finally {
    probe.disconnect();
  }
}

async function stopRedis(): Promise<void> {
  if (!redisServer || redisServer.exitCode !== null) return;
  const exited = once(redisServer, 'exit');
  redisServer.kill('SIGKILL');
  await exited;
}

const readyStatus = async (): Promise<number> => (await fetch(`${gateway!.url}/ready`)).status;

const send = (text: string) => rpc(gateway!.url, 'SendMessage', sendMessageParams(text));

beforeAll(async () => {
  port = await freePort();
  await startRedis();
  const url = `redis://127.0.0.1:${port}`;
  gateway = await startTestGateway({
    store: 'redis',
    'redis-url': url,
    'redis-prefix': `redis-outage-${randomBytes(4).toString('hex')}:`,
    'push-notifications': true,
    'push-queue': 'redis-streams',
    'push-redis-url': url,
    'push-keys': [`k1:${randomBytes(32).toString('base64')}`],
  });
});
afterAll(async () => {
  await gateway?.close();
  await stopRedis();
  consoleErrors.mockRestore();
});

describe('a gateway on store: redis when Redis goes away and comes back', () => {
  it('is unready while Redis is gone, answers calls with an error, and is ready and working again after', async () => {
    await waitUntil(async () => (await readyStatus()) === 200);
    expect((await send('before')).result).toBeDefined();

    await stopRedis();
    await waitUntil(async () => (await readyStatus()) === 503);
    const during = await send('during');
    expect(during.error).toMatchObject({ code: -32603 });
    expect(JSON.stringify(during)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\bat .+:\d+/);

    await startRedis();
    await waitUntil(async () => (await readyStatus()) === 200, 15_000);
    expect((await send('after')).result).toBeDefined();

    const unhandled = consoleErrors.mock.calls.filter((call) => String(call[0]).includes('Unhandled error event'));
    expect(unhandled).toEqual([]);
  }, 60_000);
});

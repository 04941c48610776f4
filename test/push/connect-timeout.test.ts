/**
 * An attempt given up before the gateway was connected to the receiver (its TLS handshake never ended,
 * as with an address that drops packets during the receiver's deploy) sent nothing: it must not count as
 * "may have arrived". Else the stale check takes the artifact text for sent, and once the turn's
 * COMPLETED is delivered the artifact's retry is dropped: the receiver never reads the text.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { deliver } from '../../src/push/dispatch.js';
import { dispose } from '../../src/push/queue/retry-policy.js';
import { newPushJob, type PushJob } from '../../src/push/queue/types.js';
import { createMemoryDeliveredStates, skippingStale } from '../../src/push/stale-notifications.js';
import { startReceiver } from './fixtures/receiver.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const TIMEOUT_MS = 300;
const silent = { info() {}, warn() {}, error() {} };
const policy = { initialDelayMs: 1, multiplier: 1, maxDelayMs: 1, jitter: 0, maxAttempts: 5 };

/** Accepts TCP connections and never answers: a TLS client waits for the server's hello until it gives up. */
async function silentTlsAddress(): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const job = (name: string, url: string, noticedAt: number, stateAt?: number): PushJob =>
  newPushJob({
    eventId: `task-1:${name}`,
    taskId: 'task-1',
    configId: 'cfg',
    owner: 'alice',
    url,
    payload: JSON.stringify({ name }),
    noticedAt,
    ...(stateAt !== undefined ? { stateAt } : {}),
  });

it('an attempt given up before the connection was made is not taken for one that may have arrived', async () => {
  const result = await deliver(job('artifact', await silentTlsAddress(), 1_000), { allowPrivate: true, timeoutMs: TIMEOUT_MS });
  expect(result).toEqual({ outcome: 'retry', error: 'delivery timed out' });
});

it('the artifact text of an attempt that never connected still reaches the receiver after COMPLETED', async () => {
  const receiver = await startReceiver();
  cleanup.push(() => receiver.close());
  const unreachable = await silentTlsAddress();
  // The first attempt finds the receiver's address silent; by the retry it answers again (here: at another address).
  const send = skippingStale((attempt) => deliver(attempt, { allowPrivate: true, timeoutMs: TIMEOUT_MS }), createMemoryDeliveredStates(), silent);

  const artifact = job('artifact', unreachable, 1_000);
  const first = dispose(artifact, await send(artifact), policy);
  expect(first.kind).toBe('retry');
  if (first.kind !== 'retry') return;
  // The turn's end went meanwhile (an entry waiting for its retry is out of its webhook's line).
  expect((await send(job('COMPLETED', `${receiver.url}/hook`, 1_001, 1_001))).outcome).toBe('delivered');
  const retried = await send({ ...first.job, url: `${receiver.url}/hook` });

  expect(retried.outcome).toBe('delivered');
  expect(receiver.received.map((request) => (JSON.parse(request.body) as { name: string }).name)).toEqual(['COMPLETED', 'artifact']);
});

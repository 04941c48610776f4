/**
 * The push queue's delivery slots (8) are shared between owners: one API key whose configs point at a
 * receiver that takes the connection and never answers fills every slot for `push-timeout-ms` per attempt,
 * and another key's notification takes the next slot that frees instead of waiting out her whole backlog
 * (24 webhooks, two attempts each: minutes at the default timeout).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { waitUntil } from '../../support/wait-until.js';

const ALICE = 'alice-key-aaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const BOB = 'bob-key-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
let gateway: TestGateway;
let dir: string;
let tarpitHits = 0;
let tarpitHitsWhenBobArrived: number | undefined;
let bobArrived: () => void;
const bobPushed = new Promise<void>((resolve) => (bobArrived = resolve));
/** Requests the tarpit took and never answers; the test ends them one at a time, as `push-timeout-ms` would. */
const held: IncomingMessage[] = [];
let closing = false;
const tarpit: Server = createServer((req) => {
  tarpitHits++;
  if (closing) req.socket.destroy();
  else held.push(req);
});
const good: Server = createServer((req, res) => {
  req.resume().on('end', () => {
    tarpitHitsWhenBobArrived ??= tarpitHits;
    bobArrived();
    res.writeHead(200).end();
  });
});
const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
let tarpitUrl: string;
let goodUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'push-owner-slots-'));
  tarpitUrl = await listen(tarpit);
  goodUrl = await listen(good);
  gateway = await startSdkGateway({
    auth: { 'api-keys': [ALICE, BOB] },
    'push-notifications': true,
    'push-allow-private': true,
    // Longer than the test: a slot frees only when the test ends a held request.
    'push-timeout-ms': 60_000,
    'push-max-attempts': 2,
    'persistence-dir': dir,
  });
});
afterAll(async () => {
  // The gateway's stop waits for the deliveries in flight: they end now, and any started meanwhile at once.
  closing = true;
  for (const request of held.splice(0)) request.socket.destroy();
  await gateway?.close();
  for (const server of [tarpit, good]) {
    server.closeAllConnections();
    server.close();
  }
  await rm(dir, { recursive: true, force: true });
});

async function send(key: string, configId: string, url: string): Promise<string> {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': key },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        configuration: { taskPushNotificationConfig: { id: configId, url } },
      },
    }),
  });
  return ((await response.json()) as { result: { task: { id: string } } }).result.task.id;
}

/** What the push queue holds (waiting or in flight), from the gateway's metrics. */
async function queueDepth(): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(/^a2a_bridge_push_queue_depth\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? NaN);
}

it("another key's notification does not wait behind one key's unanswered webhooks", async () => {
  // 24 of Alice's turns, each with a webhook that never answers: 24 lanes, 8 of them in flight.
  for (let i = 0; i < 24; i++) await send(ALICE, 'slow', `${tarpitUrl}/alice/${i}`);
  await waitUntil(async () => tarpitHits === 8 && (await queueDepth()) === 24, 10_000);
  await send(BOB, 'mine', `${goodUrl}/bob`);
  await waitUntil(async () => (await queueDepth()) === 25, 10_000);
  // Alice's deliveries end one at a time (reset, as a timeout would end them) until Bob's went out.
  while (tarpitHitsWhenBobArrived === undefined) {
    const before = tarpitHits;
    held.shift()?.socket.destroy();
    await waitUntil(async () => tarpitHits > before || tarpitHitsWhenBobArrived !== undefined, 10_000);
  }
  await bobPushed;
  // Bob's took the first slot that freed, not a place after Alice's whole backlog (24 first attempts).
  expect(tarpitHitsWhenBobArrived).toBe(8);
});

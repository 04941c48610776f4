/**
 * A notification the gateway gives up on is counted `outcome="permanent"`, which A2ABridgePushDeliveriesFailing
 * watches ("a webhook refuses them or stays out of reach"): also one whose webhook stayed out of reach through
 * its last attempt (`push-max-attempts`) and was dead-lettered for it, not only one refused for good at once.
 * Each attempt before the last is a `retry`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_PORT } from '../support/free-port.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value } from '../support/prometheus.js';
import { waitUntil } from '../support/wait-until.js';

let dir: string;
let gateway: TestGateway;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-push-gave-up-'));
  gateway = await startTestGateway({
    'push-notifications': true,
    'push-allow-private': true,
    'push-max-attempts': 2,
    'persistence-dir': dir,
  });
});
afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

const deadLetters = async (): Promise<string> => readFile(path.join(dir, 'push', 'dead.jsonl'), 'utf8').catch(() => '');

describe('a2a_bridge_push_deliveries_total for a webhook out of reach', () => {
  it('counts the first attempt a retry and the last one, dead-lettered, permanent', async () => {
    const message = { messageId: 'push-gave-up-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] };
    const configuration = { taskPushNotificationConfig: { url: `http://127.0.0.1:${CLOSED_PORT}/hook`, token: 'webhook-token-0123456789' } };
    const res = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message, configuration } }),
    });
    expect(((await res.json()) as { result?: unknown }).result).toBeDefined();
    await waitUntil(async () => (await deadLetters()).includes('gave up after 2 attempts'), 15_000);
    const samples = await scrape(gateway.url);
    const deliveries = (outcome: string) => value(samples, 'a2a_bridge_push_deliveries_total', { outcome });
    expect(deliveries('retry') + deliveries('permanent')).toBe(2);
    expect(deliveries('permanent')).toBe(1);
    expect(deliveries('retry')).toBe(1);
  });
});

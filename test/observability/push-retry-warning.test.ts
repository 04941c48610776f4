/**
 * A webhook out of reach is told when its first notification fails, not only by the dead letter that comes once
 * `push-max-attempts` ran out (some 4 minutes with the defaults): a warning naming the webhook by its origin (never
 * its path or token), the attempt and why, at most once a minute (the lines in between are counted in `leftOut`).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_PORT } from '../support/free-port.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/wait-until.js';

let dir: string;
let gateway: TestGateway;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-push-retry-warning-'));
  gateway = await startTestGateway({
    'push-notifications': true,
    'push-allow-private': true,
    'push-max-attempts': 3,
    'persistence-dir': dir,
  });
});
afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

const deadLetters = async (): Promise<string> => readFile(path.join(dir, 'push', 'dead.jsonl'), 'utf8').catch(() => '');

describe('a notification its webhook did not take', () => {
  it('is told at warn at its first failed attempt, once a minute, naming the webhook by its origin', async () => {
    const message = { messageId: 'push-retry-warning-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] };
    const hook = `http://127.0.0.1:${CLOSED_PORT}/hook-secret-path?sig=query-secret`;
    const configuration = { taskPushNotificationConfig: { url: hook, token: 'webhook-token-0123456789' } };
    const res = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message, configuration } }),
    });
    const task = ((await res.json()) as { result: { task: { id: string } } }).result.task;
    await waitUntil(async () => (await deadLetters()).includes('gave up after 3 attempts'), 20_000);
    const retries = gateway.log().filter((line) => line.msg.startsWith('A2A push notification not delivered'));
    // Two attempts failed before the last: the second within the minute, counted, not told.
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ level: 40, webhook: `http://127.0.0.1:${CLOSED_PORT}`, taskId: task.id, attempt: 1, maxAttempts: 3 });
    expect(retries[0]!.error).toEqual(expect.any(String));
    expect(JSON.stringify(retries)).not.toMatch(/hook-secret-path|query-secret|webhook-token/);
  });
});

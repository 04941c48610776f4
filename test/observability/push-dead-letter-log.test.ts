/**
 * A notification given up on is logged at error with why (`reason`) and which job, task and config; the config is
 * sealed in the store, so the line also says where the notification was going, the webhook's origin (scheme, host
 * and port: never its path, query or token, which may be credentials), for the operator to find the receiver
 * that is down. Both queues (local-file, redis-streams) write it alike.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_PORT } from '../support/free-port.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';
import { waitUntil } from '../support/wait-until.js';

beforeAll(requireRedis);

const WEBHOOK = `http://127.0.0.1:${CLOSED_PORT}/hooks/team-a?sig=query-secret-value`;
const PREFIX = `a2a-bridge-test:dead-letter-log:${randomUUID()}:`;
const dirs: string[] = [];
const gateways: TestGateway[] = [];

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  await deleteRedisKeys(PREFIX);
});

async function gatewayWith(queue: Record<string, unknown>): Promise<TestGateway> {
  const dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-dead-letter-'));
  dirs.push(dir);
  const gateway = await startTestGateway({
    'push-notifications': true,
    'push-allow-private': true,
    'push-max-attempts': 1,
    'persistence-dir': dir,
    ...queue,
  });
  gateways.push(gateway);
  return gateway;
}

async function deadLetterLine(gateway: TestGateway): Promise<Record<string, unknown>> {
  const message = { messageId: `dead-letter-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] };
  const configuration = { taskPushNotificationConfig: { url: WEBHOOK, token: 'webhook-token-value-0123' } };
  const res = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message, configuration } }),
  });
  expect(((await res.json()) as { result?: unknown }).result).toBeDefined();
  const find = () => gateway.log().find((line) => line.msg === 'A2A push notification dead-lettered');
  await waitUntil(async () => find() !== undefined, 15_000);
  return find()!;
}

describe('the dead-letter line of a notification whose webhook is out of reach', { timeout: 30_000 }, () => {
  it.each([
    ['local-file', { 'push-queue': 'local-file' }],
    [
      'redis-streams',
      {
        store: 'redis',
        'redis-url': REDIS_URL,
        'redis-prefix': PREFIX,
        'push-queue': 'redis-streams',
        'push-keys': ['k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
        'push-stream': `${PREFIX}push`,
        'push-retry-key': `${PREFIX}push:retry`,
        'push-dead-stream': `${PREFIX}push:dead`,
      },
    ],
  ])('names the webhook by its origin alone (%s)', async (_name, queue) => {
    const line = await deadLetterLine(await gatewayWith(queue));
    expect(line).toMatchObject({ level: 50, webhook: `http://127.0.0.1:${CLOSED_PORT}` });
    expect(String(line.reason)).toContain('ECONNREFUSED');
    const text = JSON.stringify(line);
    for (const secret of ['query-secret-value', 'webhook-token-value-0123', '/hooks/team-a']) expect(text).not.toContain(secret);
  });
});

/**
 * The facade's task methods while the gateway's Redis is gone (stopped: its port refuses connections): each one
 * names a task, which the facade looks up among the ids callers chose (the task aliases) before anything else, so
 * each is refused for now as a 1.0 read is ("The gateway cannot record tasks right now", Retry-After), push config
 * methods included, and the request's log line says what Redis did, not those words.
 * (A Redis that does not answer: registry-out-of-reach.test.ts.) A redis-server of the test's own.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES, STORE_RETRY_AFTER_SECONDS } from '../../../src/model/index.js';
import { rpc, userMessage } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { waitUntil } from '../../support/wait-until.js';

let redis: OwnRedis;
let gateway: TestGateway;
let taskId: string;

beforeAll(async () => {
  redis = await ownRedis();
  gateway = await startTestGateway({
    store: 'redis',
    'redis-url': redis.url,
    'redis-prefix': `facade-store-gone-${randomBytes(4).toString('hex')}:`,
    'redis-command-timeout-ms': 1_000,
    'push-notifications': true,
  });
  await waitUntil(async () => (await fetch(`${gateway.url}/ready`)).status === 200, 15_000);
  taskId = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: '你好' }) })).body.result.id;
  await redis.stop();
}, 60_000);
afterAll(async () => {
  // Back first: a gateway closes its Redis clients at once then, not after their retries.
  await redis?.start();
  await gateway?.close();
  await redis?.stop();
});

describe('facade task methods while Redis is gone', () => {
  it('are refused for now with Retry-After, and logged with what Redis did', async () => {
    const config = { url: 'https://example.com/callback' };
    for (const [path, method, params] of [
      ['/', 'tasks/get', { id: taskId }],
      ['/', 'tasks/cancel', { id: taskId }],
      ['/stream', 'tasks/resubscribe', { id: taskId }],
      ['/', 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: config }],
      ['/', 'tasks/pushNotificationConfig/get', { id: taskId }],
      ['/', 'tasks/pushNotificationConfig/list', { id: taskId }],
      ['/', 'tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'c-1' }],
    ] as const) {
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      expect(response.headers.get('retry-after'), method).toBe(String(STORE_RETRY_AFTER_SECONDS));
      const text = await response.text();
      const body = JSON.parse(path === '/stream' ? (/^data: (.*)$/m.exec(text)?.[1] ?? 'null') : text);
      expect(body.error, method).toEqual({ code: -32603, message: GATEWAY_FAILURES.registryOutOfReach });
      const line = gateway.requestLog().findLast((one) => one.method === method);
      expect(line?.cause, method).not.toBe(GATEWAY_FAILURES.registryOutOfReach);
      expect(line?.cause, method).toMatch(/max retries per request|Connection is closed|ECONNREFUSED|Command timed out/i);
    }
  });
});

/**
 * A push config with an empty callback URL is refused with a message that says so, whichever surface
 * it comes through: proto3 JSON leaves an empty string out, so an SDK's `url: ""` reaches the gateway
 * as no url at all, and "expected string, received undefined" told the caller nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { userMessage } from '../../support/v1-message.js';

let gateway: TestGateway;
let dir: string;
let taskId: string;

async function post(path: string, body: unknown, version = '1.0'): Promise<any> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': version },
    body: JSON.stringify(body),
  });
  return response.json();
}
const rpc = (method: string, params: unknown, version = '1.0') => post('/', { jsonrpc: '2.0', id: 1, method, params }, version);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-push-empty-url-'));
  gateway = await startDemoGateway({ 'push-notifications': true, 'push-allow-private': true, 'persistence-dir': dir });
  taskId = (await rpc('SendMessage', { message: userMessage('a task to hook') })).result.task.id;
});
afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a push config with an empty url', () => {
  it('1.0 JSON-RPC, url "" and url left out: the url is empty', async () => {
    for (const config of [{ id: 'h', url: '' }, { id: 'h' }]) {
      const answer = await rpc('CreateTaskPushNotificationConfig', { taskId, ...config });
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toMatch(/url is empty/);
      expect(answer.error.message).not.toMatch(/received undefined/);
    }
  });

  it('1.0 HTTP+JSON, as an SDK sends url "" (left out)', async () => {
    const answer = await post(`/tasks/${taskId}/pushNotificationConfigs`, { taskId, id: 'h' });
    expect(JSON.stringify(answer)).toMatch(/url is empty/);
  });
});

describe('a 0.2.5 push config with an empty url', () => {
  it('tasks/pushNotificationConfig/set: the url is empty', async () => {
    const answer = await rpc('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { id: 'h', url: '' } }, '0.2.5');
    expect(answer.error.code).toBe(-32602);
    expect(JSON.stringify(answer.error)).toMatch(/url is empty/);
  });
});

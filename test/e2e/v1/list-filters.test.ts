/**
 * ListTasks filters as a caller writes them on the wire, through the gateway and straight at a real a2a-js
 * 1.x agent: a status of TASK_STATE_UNSPECIFIED (proto3's zero value, what a gRPC caller's unset field is)
 * is no filter, as the agent reads it, not a filter that matches no task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { SDK_JSONRPC_PATH } from '../../support/sdk-v1-agent.js';

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

describe('ListTasks with status TASK_STATE_UNSPECIFIED', () => {
  let gateway: TestGateway;
  let taskId = '';
  beforeAll(async () => {
    gateway = await startSdkGateway();
    const sent = await rpc(gateway.url, 'SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'list me' }] } });
    taskId = sent.result.task.id;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  async function rpc(url: string, method: string, params: unknown): Promise<any> {
    const response = await fetch(url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return response.json();
  }

  it('lists every task, over JSON-RPC and HTTP+JSON, as the agent itself does', async () => {
    const params = { status: 'TASK_STATE_UNSPECIFIED' };
    const direct = await rpc(`${gateway.upstreamUrl}${SDK_JSONRPC_PATH}`, 'ListTasks', params);
    expect(direct.result.tasks.map((task: { id: string }) => task.id)).toContain(taskId);
    const overRpc = await rpc(`${gateway.url}/`, 'ListTasks', params);
    expect(overRpc.result.tasks.map((task: { id: string }) => task.id)).toEqual([taskId]);
    const overRest = await fetch(`${gateway.url}/tasks?status=TASK_STATE_UNSPECIFIED`, { headers: JSON_HEADERS });
    expect(((await overRest.json()) as { tasks: Array<{ id: string }> }).tasks.map((task) => task.id)).toEqual([taskId]);
  });
});

/**
 * ListTasks filters as a caller writes them on the wire, through the gateway and straight at a real a2a-js
 * 1.x agent: a status of TASK_STATE_UNSPECIFIED (proto3's zero value, what a gRPC caller's unset field is)
 * is no filter, as the agent reads it, not a filter that matches no task. `statusTimestampAfter` given to
 * the official client as a Date filters on every binding: over HTTP+JSON the client puts the Date into
 * the query as it prints itself (`Sat Dec 05 2026 …`), not RFC 3339.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { SDK_JSONRPC_PATH } from '../../support/sdk-v1-agent.js';
import { TRANSPORTS, asTask, connect, listRequest, sendRequest } from '../../support/sdk-v1-client.js';

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

describe('ListTasks with statusTimestampAfter from the official client', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startSdkGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(TRANSPORTS)('%s: a Date filters as it does going straight to the agent', async (transport) => {
    const viaGateway = await connect(gateway.url, transport);
    const direct = await connect(gateway.upstreamUrl ?? '', transport);
    const { id } = asTask(await viaGateway.client.sendMessage(sendRequest('list me by time')));
    // The SDK types the field as a string, but it is a Timestamp, and a caller in JavaScript gives a Date:
    // JSON-RPC and gRPC send it as RFC 3339, HTTP+JSON as the Date prints itself.
    const ids = async (client: typeof direct.client, after: Date) =>
      (await client.listTasks(listRequest({ statusTimestampAfter: after as unknown as string }))).tasks.map((task) => task.id);
    const hourAgo = new Date(Date.now() - 3_600_000);
    const inAnHour = new Date(Date.now() + 3_600_000);
    expect(await ids(direct.client, hourAgo)).toContain(id);
    expect(await ids(viaGateway.client, hourAgo)).toContain(id);
    expect(await ids(direct.client, inAnHour)).toEqual([]);
    expect(await ids(viaGateway.client, inAnHour)).toEqual([]);
    if (transport === 'HTTP+JSON') {
      const sent = new URL(viaGateway.requests.at(-1)!.url).searchParams.get('statusTimestampAfter');
      expect(sent).toBe(String(inAnHour));
    }
  });
});

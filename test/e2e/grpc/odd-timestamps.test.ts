/**
 * An agent that writes a status timestamp that is no date ("yesterday"): the JSON bindings relay it as
 * written; protobuf's Timestamp cannot hold it, so over gRPC the status comes without it, rather than the
 * answer failing after the turn ran, and every later ListTasks of the caller with it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { jsonRpcAgentCard, readJsonBody } from '../../support/json-rpc-agent.js';
import { asTask, listRequest, sendRequest } from '../../support/sdk-v1-client.js';
import { connectGrpc } from './grpc-client.js';

let agent: Server;
let gateway: TestGateway;

beforeAll(async () => {
  agent = createServer((req, res) => {
    const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET') {
      res.end(JSON.stringify(jsonRpcAgentCard(url, { name: 'odd', description: 'odd dates', skill: { id: 's', name: 's', description: 's' } })));
      return;
    }
    void readJsonBody(req).then((body: { id: unknown; params: { message: { contextId?: string } } }) => {
      const contextId = body.params.message.contextId ?? `ctx-${Math.random().toString(36).slice(2)}`;
      const task = {
        id: `task-${Math.random().toString(36).slice(2)}`,
        contextId,
        status: { state: 'TASK_STATE_COMPLETED', timestamp: 'yesterday' },
      };
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { task } }));
    });
  });
  await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({ upstream: { url: `http://127.0.0.1:${(agent.address() as AddressInfo).port}` }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  agent?.closeAllConnections();
  agent?.close();
});

describe('a status timestamp that is no date, over gRPC', () => {
  it('the answer and every later ListTasks come, the status without it', async () => {
    const client = await connectGrpc(gateway.url);
    const task = asTask(await client.sendMessage(sendRequest('when?')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.timestamp).toBeUndefined();
    const listed = await client.listTasks(listRequest());
    expect(listed.tasks.map((listedTask) => listedTask.id)).toEqual([task.id]);
  });
});

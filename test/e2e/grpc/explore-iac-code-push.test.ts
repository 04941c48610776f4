/**
 * Push configs and ListTasks filters as a 1.0 SDK developer in front of iac-code uses them, on JSON-RPC,
 * HTTP+JSON and gRPC: the gateway keeps the configs (iac-code's card offers no push), and every binding
 * returns the same configs (secrets masked), pages, and the same error for a config that is not there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, connect, listRequest, rejectionOf, sendRequest } from '../../support/sdk-v1-client.js';
import { connectGrpc } from './grpc-client.js';
import { normalized } from './explore-iac-code-normalized.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-explore-push-'));
let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode();
  gateway = await startTestGateway({
    upstream: { url: fake.url },
    grpc: { port: 0 },
    'push-notifications': true,
    'push-allow-private': true,
    'persistence-dir': dir,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function reasonOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    if (isGrpcError(error)) return { reason: error.reason, message: error.message };
    const { reason, message } = await rejectionOf(Promise.reject(error));
    return { reason, message };
  }
  return 'no error';
}

async function pushConfigs(client: Client) {
  const task = asTask(await client.sendMessage(sendRequest('template: a VPC')));
  const taskId = task.id;
  const hook = (id: string) => ({
    tenant: '',
    taskId,
    id,
    url: `https://hooks.example.com/${id}`,
    token: 'secret-token',
    authentication: { scheme: 'Bearer', credentials: 'secret-credentials' },
  });
  const created = [await client.createTaskPushNotificationConfig(hook('a')), await client.createTaskPushNotificationConfig(hook('b'))];
  const fetched = await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'a' });
  const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' });
  const first = await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 1, pageToken: '' });
  const second = await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 1, pageToken: first.nextPageToken });
  await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: 'a' });
  const missing = await reasonOf(() => client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'a' }));
  return {
    configs: normalized({ created, fetched, listed: listed.configs, missing }),
    pages: normalized({ pages: [first.configs, second.configs, second.nextPageToken] }),
  };
}

async function lists(client: Client) {
  const first = asTask(await client.sendMessage(sendRequest('template: a VPC')));
  const second = asTask(await client.sendMessage(sendRequest('and a subnet', { contextId: first.contextId })));
  const contextId = first.contextId;
  const page1 = await client.listTasks(listRequest({ contextId, pageSize: 1 }));
  const page2 = await client.listTasks(listRequest({ contextId, pageSize: 1, pageToken: page1.nextPageToken }));
  const after = second.status?.timestamp ?? first.status?.timestamp;
  return normalized({
    ids: [first.id, second.id],
    pages: [page1.tasks.map((task) => task.id), page2.tasks.map((task) => task.id), page1.totalSize, page2.nextPageToken],
    waiting: (await client.listTasks(listRequest({ contextId, status: TaskState.TASK_STATE_INPUT_REQUIRED }))).tasks.length,
    recent: (await client.listTasks(listRequest({ contextId, statusTimestampAfter: after }))).tasks.length,
    withHistory: (await client.listTasks(listRequest({ contextId, historyLength: 1 }))).tasks.map((task) => task.history.length),
    noHistory: (await client.listTasks(listRequest({ contextId, historyLength: 0 }))).tasks.map((task) => task.history.length),
    badToken: await reasonOf(() => client.listTasks(listRequest({ contextId, pageToken: 'not-a-token' }))),
  });
}

it('push configs come back the same on every binding', async () => {
  const seen: Record<string, Awaited<ReturnType<typeof pushConfigs>>> = {};
  for (const binding of BINDINGS)
    seen[binding] = await pushConfigs(binding === 'GRPC' ? await connectGrpc(gateway.url) : (await connect(gateway.url, binding)).client);
  expect(JSON.stringify(seen['JSONRPC'])).not.toContain('secret-');
  expect(seen['HTTP+JSON']!.configs).toEqual(seen['JSONRPC']!.configs);
  expect(seen['GRPC']).toEqual(seen['JSONRPC']);
  // a2a-js 1.x's HTTP+JSON transport sends neither pageSize nor pageToken (its listTaskPushNotificationConfig builds
  // no query), so its pages are not compared: the gateway's route reads both from the query.
});

it('ListTasks filters and pages the same on every binding', async () => {
  const seen: Record<string, unknown> = {};
  for (const binding of BINDINGS)
    seen[binding] = await lists(binding === 'GRPC' ? await connectGrpc(gateway.url) : (await connect(gateway.url, binding)).client);
  expect(seen['HTTP+JSON']).toEqual(seen['JSONRPC']);
  expect(seen['GRPC']).toEqual(seen['JSONRPC']);
});

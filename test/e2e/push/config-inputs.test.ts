/**
 * Push-config inputs on every 1.0 binding of a real gateway (JSON-RPC, HTTP+JSON, gRPC through the
 * official a2a-js 1.x gRPC transport), inline configs and the facade included: a token, credentials or
 * scheme too large for the header it goes in is refused when the config is created (the largest allowed
 * one reaches a receiver with Node's default header limit); ListTaskPushNotificationConfigs reads
 * pageSize 0 as unset; a missing taskId is told the id rule on every binding alike.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status as grpcStatus } from '@grpc/grpc-js';
import { TaskPushNotificationConfig } from 'a2a-sdk-1';
import type { Transport } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';
import { Receiver } from './harness.js';

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
const V025 = { 'content-type': 'application/json' };
const GOOD_URL = 'https://hooks.example.com/cb';
const ID_RULE = 'Invalid params: taskId: must be 1-128 characters of letters, digits, _ . : -';

let dir: string;
let gateway: TestGateway;
let grpc: Transport;
let receiver: Receiver;

async function rpc(method: string, params: unknown, headers: Record<string, string> = V1): Promise<any> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  return response.json();
}

async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: V1,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: await response.json() };
}

const v1Message = (text = 'push me', ids: { taskId?: string; contextId?: string } = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...ids,
});
const newTask = async (): Promise<{ id: string; contextId: string }> => (await rpc('SendMessage', { message: v1Message() })).result.task;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-push-config-inputs-'));
  receiver = await new Receiver().up();
  gateway = await startDemoGateway({ 'push-notifications': true, 'push-allow-private': true, 'persistence-dir': dir, grpc: { port: 0 } });
  grpc = await grpcTransport(gateway);
});
afterAll(async () => {
  await gateway?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
});

/** Each too large for the header it goes in; `field` is the one the caller is told of. */
const TOO_LARGE = [
  { name: 'a token of 4,097 characters', field: 'token', config: { token: 't'.repeat(4097) } },
  { name: 'a token of 3 MB', field: 'token', config: { token: 't'.repeat(3_000_000) } },
  {
    name: 'credentials of 4,097 characters',
    field: 'authentication.credentials',
    config: { authentication: { scheme: 'Bearer', credentials: 'c'.repeat(4097) } },
  },
  { name: 'a scheme of 65 characters', field: 'authentication.scheme', config: { authentication: { scheme: 'S'.repeat(65), credentials: 'c' } } },
];

describe.each(TOO_LARGE)('$name', ({ field, config }) => {
  const told = new RegExp(`^A2A push ${field.replace('.', '\\.')} must be at most \\d+ characters: it is sent in an HTTP header$`);

  it('is refused on JSON-RPC (-32602), HTTP+JSON (400) and gRPC (INVALID_ARGUMENT), saying why; nothing is stored', async () => {
    const task = await newTask();
    const created = await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'big', url: GOOD_URL, ...config });
    expect(created.error, JSON.stringify(created).slice(0, 300)).toMatchObject({ code: -32602 });
    expect(created.error.message).toMatch(told);

    const posted = await rest('POST', `/tasks/${task.id}/pushNotificationConfigs`, { id: 'big', url: GOOD_URL, ...config });
    expect(posted.status).toBe(400);
    expect(posted.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(posted.body.error.message).toMatch(told);

    const viaGrpc = await grpcFailureOf(
      grpc.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: 'big', url: GOOD_URL, ...config }), wire()),
    );
    expect(viaGrpc).toMatchObject({ status: grpcStatus.INVALID_ARGUMENT, reason: 'INVALID_PARAMS' });
    expect(viaGrpc.message).toContain(`A2A push ${field} must be at most`);

    expect((await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).result).toEqual({ configs: [] });
  });

  it('is refused inline in a 1.0 SendMessage and in a facade message/send, before any turn runs', async () => {
    const inline = await rpc('SendMessage', { message: v1Message(), configuration: { taskPushNotificationConfig: { url: GOOD_URL, ...config } } });
    expect(inline.error, JSON.stringify(inline).slice(0, 300)).toMatchObject({ code: -32602 });
    expect(inline.error.message).toMatch(told);

    const { authentication, ...rest025 } = config as { token?: string; authentication?: { scheme: string; credentials: string } };
    const v025Config = {
      url: GOOD_URL,
      ...rest025,
      ...(authentication ? { authentication: { schemes: [authentication.scheme], credentials: authentication.credentials } } : {}),
    };
    const facade = await rpc(
      'message/send',
      {
        message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'push me' }] },
        configuration: { pushNotificationConfig: v025Config },
      },
      V025,
    );
    expect(facade.error, JSON.stringify(facade).slice(0, 300)).toMatchObject({ code: -32602 });
  });
});

it('the largest token and Basic credentials allowed, on a long URL, reach a receiver with Node’s default header limit', async () => {
  const task = await newTask();
  const token = 't'.repeat(4096);
  const credentials = `u:${'p'.repeat(4094)}`;
  const path = `/largest/${'a'.repeat(2048 - receiver.url.length - '/largest/'.length)}`;
  const created = await rpc('CreateTaskPushNotificationConfig', {
    taskId: task.id,
    id: 'largest',
    url: `${receiver.url}${path}`,
    token,
    authentication: { scheme: 'Basic', credentials },
  });
  expect(created.error).toBeUndefined();
  await rpc('SendMessage', { message: v1Message('again', { taskId: task.id, contextId: task.contextId }) });
  const [delivery] = await receiver.waitFor(path, 1);
  expect(delivery!.headers['x-a2a-notification-token']).toBe(token);
  expect(delivery!.headers['a2a-notification-token']).toBe(token);
  expect(delivery!.headers.authorization).toBe(`Basic ${Buffer.from(credentials).toString('base64')}`);
});

describe('ListTaskPushNotificationConfigs pageSize 0 (a plain proto3 int32: unset)', () => {
  it('gets the default page on JSON-RPC, HTTP+JSON and gRPC', async () => {
    const task = await newTask();
    for (const id of ['a', 'b']) {
      expect((await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id, url: GOOD_URL })).error).toBeUndefined();
    }
    const viaRpc = await rpc('ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: 0, pageToken: '' });
    expect(viaRpc.error).toBeUndefined();
    expect(viaRpc.result.configs.map((config: { id: string }) => config.id)).toEqual(['a', 'b']);

    const viaRest = await rest('GET', `/tasks/${task.id}/pushNotificationConfigs?pageSize=0`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.configs.map((config: { id: string }) => config.id)).toEqual(['a', 'b']);

    const viaGrpc = await grpc.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, wire());
    expect(viaGrpc.configs.map((config) => config.id)).toEqual(['a', 'b']);

    // Still 1 to 100 otherwise.
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: -1 })).error).toMatchObject({ code: -32602 });
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: 101 })).error).toMatchObject({ code: -32602 });
  });

  it("ListTasks' pageSize has presence (optional int32): 0 is an explicit value under the minimum, still refused", async () => {
    expect((await rpc('ListTasks', { pageSize: 0 })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('minimum page size is 1'),
    });
  });
});

describe('CreateTaskPushNotificationConfig without a taskId', () => {
  it('tells the id rule on JSON-RPC and gRPC, in the words HTTP+JSON uses', async () => {
    const viaRest = await rest('POST', '/tasks//pushNotificationConfigs', { url: GOOD_URL });
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error.message).toBe(ID_RULE);

    for (const params of [{ url: GOOD_URL }, { taskId: '', url: GOOD_URL }]) {
      const viaRpc = await rpc('CreateTaskPushNotificationConfig', params);
      expect(viaRpc.error).toMatchObject({ code: -32602, message: ID_RULE });
    }

    // The SDK's `taskId: ""` is left out by proto3 JSON: the gateway sees no taskId at all.
    const viaGrpc = await grpcFailureOf(
      grpc.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: '', url: GOOD_URL }), wire()),
    );
    expect(viaGrpc).toMatchObject({ status: grpcStatus.INVALID_ARGUMENT, reason: 'INVALID_PARAMS' });
    expect(viaGrpc.message).toContain(ID_RULE);
    expect(viaGrpc.message).not.toMatch(/received undefined/);
  });
});

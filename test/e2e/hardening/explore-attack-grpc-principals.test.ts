/**
 * Another credential's task over the gRPC binding, probed as a hostile caller with a valid credential of its own
 * would: every method that names a task (GetTask, CancelTask, SubscribeToTask, the four push-config methods, a
 * message into the task, into its context or referring to it, ListTasks by its context) answers as for a task
 * nobody holds, and changes nothing of it. The credential may come as a Bearer token, in another case of its
 * scheme, or as an API key; the metadata is read as the HTTP bindings read headers (src/surfaces/grpc/call.ts).
 * A facade key is no 1.0 credential here either, and an id shaped as a resource name (`tasks/<id>`, `tasks/../`)
 * is refused by the id rule rather than resolved. Each refusal is checked against Alice's own call of the same
 * request, so a malformed request cannot pass for a refusal.
 */
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from 'a2a-sdk-1';
import { A2AService } from 'a2a-sdk-1/server/grpc';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

const ALICE = 'attack-grpc-alice-token-5f0c2e9a7b';
const BOB = 'attack-grpc-bob-token-8d41a6c3e2';
const BOB_KEY = 'attack-grpc-bob-key-3b9e7d1f0a';
const FACADE_KEY = 'attack-grpc-facade-key-6c2a8e4d';
const CONTEXT = 'attack-grpc-alice-context';

let gateway: TestGateway;
let client: Client;
let dir: string;
let taskId: string;

type Service = typeof A2AService;
type Codec = { fromJSON(json: unknown): unknown };
const identity = (bytes: Buffer): Buffer => bytes;
const encode = (method: keyof Service, codec: Codec, json: unknown): Buffer =>
  Buffer.from(A2AService[method].requestSerialize(codec.fromJSON(json) as never));

function metadataOf(entries: Record<string, string>): Metadata {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return metadata;
}

/** One unary call as raw bytes: the answer's bytes, or the status it failed with. */
function unary(method: keyof Service, body: Buffer, auth: Record<string, string>): Promise<{ error?: ServiceError; response?: Buffer }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      A2AService[method].path,
      identity,
      identity,
      body,
      metadataOf(auth),
      { deadline: Date.now() + 5_000 },
      (error, response) => resolve(error ? { error } : { response: response! }),
    );
  });
}

/** A server stream read to its end: how many messages came, and the status it ended with. */
function streamed(method: keyof Service, body: Buffer, auth: Record<string, string>): Promise<{ messages: number; code: number }> {
  return new Promise((resolve) => {
    const call = client.makeServerStreamRequest(A2AService[method].path, identity, identity, body, metadataOf(auth), {
      deadline: Date.now() + 5_000,
    });
    let messages = 0;
    call.on('data', () => messages++);
    call.on('error', () => undefined);
    call.on('status', ({ code }) => resolve({ messages, code }));
  });
}

const getTask = () => encode('getTask', GetTaskRequest, { id: taskId });
const getConfig = () => encode('getTaskPushNotificationConfig', GetTaskPushNotificationConfigRequest, { taskId, id: 'alice-hook' });
const listConfigs = () => encode('listTaskPushNotificationConfigs', ListTaskPushNotificationConfigsRequest, { taskId });
const listByContext = () => encode('listTasks', ListTasksRequest, { contextId: CONTEXT });
const message = (fields: Record<string, unknown>) =>
  encode('sendMessage', SendMessageRequest, { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }], ...fields } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-attack-grpc-'));
  gateway = await startDemoGateway({
    grpc: { port: 0 },
    auth: { tokens: [ALICE, BOB], 'api-keys': [BOB_KEY] },
    bailian: { 'api-key': FACADE_KEY },
    'push-notifications': true,
    'persistence-dir': dir,
  });
  client = new Client(gateway.grpcAddress!, credentials.createInsecure());
  const alice = { authorization: `Bearer ${ALICE}` };
  const sent = await unary('sendMessage', message({ contextId: CONTEXT }), alice);
  expect(sent.error).toBeUndefined();
  taskId = sentTask(sent.response!).id!;
  expect(taskId).toEqual(expect.any(String));
  const config = encode('createTaskPushNotificationConfig', TaskPushNotificationConfig, {
    taskId,
    id: 'alice-hook',
    url: 'https://hooks.example.com/alice',
  });
  expect((await unary('createTaskPushNotificationConfig', config, alice)).error).toBeUndefined();
});
afterAll(async () => {
  client?.close();
  await gateway?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function sentTask(bytes: Buffer): { id?: string } {
  const answer = A2AService.sendMessage.responseDeserialize(bytes) as { payload?: { $case: string; value: { id: string } } };
  return answer.payload?.$case === 'task' ? { id: answer.payload.value.id } : {};
}

const BOB_CREDENTIALS: Array<{ name: string; auth: Record<string, string> }> = [
  { name: 'Bearer token', auth: { authorization: `Bearer ${BOB}` } },
  { name: 'token with its scheme in lower case', auth: { authorization: `bearer ${BOB}` } },
  { name: 'API key', auth: { 'x-api-key': BOB_KEY } },
  { name: "Alice's token refused, Bob's key taken", auth: { authorization: 'Bearer not-a-token', 'x-api-key': BOB_KEY } },
];

describe.each(BOB_CREDENTIALS)("Bob ($name) and Alice's task over gRPC", ({ auth }) => {
  it.each([
    ['GetTask', 'getTask', getTask],
    ['CancelTask', 'cancelTask', () => encode('cancelTask', CancelTaskRequest, { id: taskId })],
    ['GetTaskPushNotificationConfig', 'getTaskPushNotificationConfig', getConfig],
    ['ListTaskPushNotificationConfigs', 'listTaskPushNotificationConfigs', listConfigs],
    [
      'DeleteTaskPushNotificationConfig',
      'deleteTaskPushNotificationConfig',
      () => encode('deleteTaskPushNotificationConfig', DeleteTaskPushNotificationConfigRequest, { taskId, id: 'alice-hook' }),
    ],
    [
      'CreateTaskPushNotificationConfig',
      'createTaskPushNotificationConfig',
      () => encode('createTaskPushNotificationConfig', TaskPushNotificationConfig, { taskId, id: 'alice-hook', url: 'https://bob.example.com/x' }),
    ],
    ['SendMessage into the task', 'sendMessage', () => message({ taskId })],
    ['SendMessage referring to the task', 'sendMessage', () => message({ referenceTaskIds: [taskId] })],
  ] as const)('%s: NOT_FOUND, as for a task nobody holds', async (_name, method, body) => {
    const { error } = await unary(method, body(), auth);
    expect(error).toMatchObject({ code: status.NOT_FOUND });
  });

  it('SubscribeToTask: NOT_FOUND before any event', async () => {
    expect(await streamed('subscribeToTask', encode('subscribeToTask', SubscribeToTaskRequest, { id: taskId }), auth)).toEqual({
      messages: 0,
      code: status.NOT_FOUND,
    });
  });

  it("a message into Alice's context: INVALID_ARGUMENT, and ListTasks by it lists nothing", async () => {
    expect((await unary('sendMessage', message({ contextId: CONTEXT }), auth)).error).toMatchObject({ code: status.INVALID_ARGUMENT });
    const { response } = await unary('listTasks', listByContext(), auth);
    const listed = ListTasksResponse.toJSON(A2AService.listTasks.responseDeserialize(response!)) as { tasks?: unknown[] };
    expect(listed.tasks ?? []).toEqual([]);
  });
});

describe("Alice's own calls, after all of Bob's", () => {
  const alice = { authorization: `Bearer ${ALICE}` };

  it('her task is not canceled, and her push config is still there as she made it', async () => {
    const { response } = await unary('getTask', getTask(), alice);
    expect(Task.toJSON(A2AService.getTask.responseDeserialize(response!))).toMatchObject({ id: taskId, contextId: CONTEXT });
    expect(JSON.stringify(Task.toJSON(A2AService.getTask.responseDeserialize(response!)))).not.toContain('CANCELED');
    const configs = await unary('listTaskPushNotificationConfigs', listConfigs(), alice);
    expect(
      ListTaskPushNotificationConfigsResponse.toJSON(A2AService.listTaskPushNotificationConfigs.responseDeserialize(configs.response!)),
    ).toMatchObject({
      configs: [{ id: 'alice-hook', url: 'https://hooks.example.com/alice' }],
    });
    const listed = await unary('listTasks', listByContext(), alice);
    expect(ListTasksResponse.toJSON(A2AService.listTasks.responseDeserialize(listed.response!))).toMatchObject({ tasks: [{ id: taskId }] });
  });

  it('an id shaped as a resource name is refused by the id rule, never resolved to the task', async () => {
    for (const id of [`tasks/${taskId}`, `tasks/../tasks/${taskId}`, `${taskId}/pushNotificationConfigs/alice-hook`]) {
      const { error } = await unary('getTask', encode('getTask', GetTaskRequest, { id }), alice);
      expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    }
  });

  it("the facade's key is no 1.0 credential on the gRPC port", async () => {
    expect((await unary('getTask', getTask(), { 'x-api-key': FACADE_KEY })).error).toMatchObject({ code: status.UNAUTHENTICATED });
  });
});

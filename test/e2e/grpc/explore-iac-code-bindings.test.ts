/**
 * A 1.0 SDK developer in front of iac-code (the fake replays its captured event shapes) sees the same thing on
 * JSON-RPC, HTTP+JSON and gRPC: every payload of a streamed turn with a tool call and a template file (its bytes
 * inlined), a permission prompt answered allow and deny, a pipeline run, a cancel mid-turn, GetTask with
 * historyLength, ListTasks filters and the push-config refusal, compared whole (metadata included), ids and
 * times aside; and what the stream returns holds every word iac-code said, once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import {
  collect,
  connect,
  listRequest,
  permissionAnswer,
  rejectionOf,
  sendRequest,
  textOf,
  type Payload,
  V1_WIRE,
} from '../../support/sdk-v1-client.js';
import { connectGrpc } from './grpc-client.js';
import { normalized } from './explore-iac-code-normalized.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-explore-bindings-'));
const TEMPLATE = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
const BEFORE = ['Drafting ', 'main.tf. '];
const AFTER = ['Wrote ', 'main.tf.'];
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({
    permissionWait: 'parked',
    script: { before: BEFORE, after: AFTER, artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir }, permission: true },
  });
  gateway = await startTestGateway({ upstream: { url: fake.url, 'artifact-dir': dir, 'inline-artifacts': true }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const clientFor = async (binding: (typeof BINDINGS)[number]): Promise<Client> =>
  binding === 'GRPC' ? connectGrpc(gateway.url) : (await connect(gateway.url, binding)).client;

const inputOf = (task: Task) => (task.metadata as { iac_code?: { input?: Record<string, string> } } | undefined)?.iac_code?.input;

/** The words iac-code said in a stream, as the chunks carry them (status messages' text), in order. */
const streamedWords = (payloads: Payload[]): string =>
  payloads
    .map((payload) =>
      payload.$case === 'statusUpdate' && !(payload.value.metadata as { iac_code?: { assistantFinal?: unknown } })?.iac_code?.assistantFinal
        ? textOf(payload.value.status?.message)
        : '',
    )
    .join('');

async function errorOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    if (isGrpcError(error)) return { reason: error.reason };
    return { reason: (await rejectionOf(Promise.reject(error))).reason };
  }
  return 'no error';
}

async function scenario(client: Client) {
  // A turn with a tool call, paused on permission; allowed; then a second turn denied.
  const asking = await collect(client.sendMessageStream(sendRequest('template: a VPC')));
  const first = asking[0]!.$case === 'task' ? asking[0]!.value : undefined;
  const taskId = first!.id;
  const contextId = first!.contextId;
  const asked = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
  // The prompt waits (INPUT_REQUIRED is no terminal state): a subscription shows the task as it stands.
  const subscribedWhileAsking = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
  const allowed = await collect(client.sendMessageStream(permissionAnswer(inputOf(asked)!, 'allow_once', { taskId, contextId })));
  const afterAllow = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
  const second = await collect(client.sendMessageStream(sendRequest('and a subnet', { taskId, contextId })));
  const askedAgain = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
  const denied = await collect(client.sendMessageStream(permissionAnswer(inputOf(askedAgain)!, 'deny', { taskId, contextId })));
  const afterDeny = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
  const histories = await Promise.all([0, 1, 2].map((historyLength) => client.getTask({ tenant: '', id: taskId, historyLength })));
  const listed = {
    byContext: (await client.listTasks(listRequest({ contextId }))).tasks.length,
    byState: (await client.listTasks(listRequest({ contextId, status: TaskState.TASK_STATE_INPUT_REQUIRED }))).tasks.length,
    byOtherState: (await client.listTasks(listRequest({ contextId, status: TaskState.TASK_STATE_COMPLETED }))).tasks.length,
    withHistory: (await client.listTasks(listRequest({ contextId, historyLength: 1, includeArtifacts: true }))).tasks,
  };
  return {
    words: { asking: streamedWords(asking), allowed: streamedWords(allowed), second: streamedWords(second), denied: streamedWords(denied) },
    streams: normalized({ asking, subscribedWhileAsking, allowed, second, denied }),
    tasks: normalized({ asked, afterAllow, askedAgain, afterDeny, histories }),
    listed: normalized(listed),
    errors: {
      unknownTask: await errorOf(() => client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })),
      // The card says no push, so the SDK's Client refuses before calling: its transport calls the gateway.
      pushConfig: await errorOf(() =>
        client.transport.createTaskPushNotificationConfig(
          { tenant: '', taskId, id: 'cfg', url: 'https://example.com/hook', token: '', authentication: undefined },
          V1_WIRE,
        ),
      ),
      pushList: await errorOf(() => client.transport.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' }, V1_WIRE)),
    },
  };
}

describe('a binary file iac-code wrote', () => {
  const BINARY = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]);
  let binaryFake: FakeIacCode;
  let binaryGateway: TestGateway;
  beforeAll(async () => {
    binaryFake = await startFakeIacCode({
      script: { before: ['Packing. '], after: ['Packed.'], artifact: { filename: 'stack.zip', content: BINARY, dir } },
    });
    binaryGateway = await startTestGateway({ upstream: { url: binaryFake.url, 'artifact-dir': dir, 'inline-artifacts': true }, grpc: { port: 0 } });
  });
  afterAll(async () => {
    await binaryGateway?.close();
    await binaryFake?.close();
  });

  it.each(BINDINGS)('reaches a %s caller byte for byte, in the stream and in GetTask', async (binding) => {
    const client = binding === 'GRPC' ? await connectGrpc(binaryGateway.url) : (await connect(binaryGateway.url, binding)).client;
    const streamed = await collect(client.sendMessageStream(sendRequest('zip it')));
    const update = streamed.find((payload) => payload.$case === 'artifactUpdate');
    const taskId = streamed[0]!.$case === 'task' ? streamed[0]!.value.id : '';
    const fetched = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    const bytesOf = (content: unknown) => (content instanceof Uint8Array ? Buffer.from(content).toString('hex') : String(content));
    const streamedPart = update?.$case === 'artifactUpdate' ? update.value.artifact?.parts[0] : undefined;
    expect(bytesOf(streamedPart?.content?.value)).toBe(BINARY.toString('hex'));
    expect(bytesOf(fetched.artifacts[0]?.parts[0]?.content?.value)).toBe(BINARY.toString('hex'));
    expect([streamedPart?.filename, fetched.artifacts[0]?.parts[0]?.filename]).toEqual(['stack.zip', 'stack.zip']);
  });
});

describe('a 1.0 SDK client in front of iac-code', () => {
  it('gets the same streams, tasks, lists and errors on JSON-RPC, HTTP+JSON and gRPC, every word once', async () => {
    const seen: Record<string, Awaited<ReturnType<typeof scenario>>> = {};
    for (const binding of BINDINGS) seen[binding] = await scenario(await clientFor(binding));
    const json = seen['JSONRPC']!;
    expect(json.words).toEqual({
      asking: BEFORE.join(''),
      allowed: AFTER.join(''),
      second: BEFORE.join(''),
      denied: expect.stringContaining('Permission denied'),
    });
    expect(JSON.stringify(json.streams)).toContain(`bytes:${Buffer.from(TEMPLATE).toString('base64')}`);
    for (const binding of ['HTTP+JSON', 'GRPC']) {
      const other = seen[binding]!;
      expect(other.words, binding).toEqual(json.words);
      expect(other.streams, binding).toEqual(json.streams);
      expect(other.tasks, binding).toEqual(json.tasks);
      expect(other.listed, binding).toEqual(json.listed);
      expect(other.errors, binding).toEqual(json.errors);
    }
  });
});

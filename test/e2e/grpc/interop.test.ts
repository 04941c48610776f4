/**
 * The gRPC binding end to end: the official a2a-js 1.x gRPC client (GrpcTransportFactory over
 * @grpc/grpc-js), built from the gateway's card URL, drives every A2AService method through the
 * gateway in front of (a) the embedded demo agent and (b) a real a2a-js 1.x server, and sees the same
 * behaviour the HTTP bindings give (test/e2e/v1/interop.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status as grpcStatus } from '@grpc/grpc-js';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V1_METHODS } from '../../../src/mappings/vocabulary.js';
import type { TestGateway } from '../../support/gateway.js';
import {
  StreamReader,
  artifactText,
  asTask,
  collect,
  listRequest,
  outline,
  payloadRef,
  sendRequest,
  streamedArtifactText,
  textOf,
  type Payload,
} from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';
import { connectGrpc, grpcFailureOf, wire } from './grpc-client.js';

const ACTIVE_STATES = [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING];

// The two blocks run side by side, each with a gateway of its own; inside one, the tests run one after another, as
// the last reads what the gateway logged of all the calls before it.
describe.concurrent.each(UPSTREAMS)('the gRPC binding in front of the $name', (upstream) => {
  let gateway: TestGateway;
  let client: Client;
  let dir: string;
  const send = async (text: string, ids: { contextId?: string } = {}) => asTask(await client.sendMessage(sendRequest(text, ids)));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-grpc-'));
    gateway = await upstream.startGateway({
      grpc: { port: 0 },
      'push-notifications': true,
      'push-allow-private': true,
      'persistence-dir': dir,
    });
    client = await connectGrpc(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.sequential('the card lists GRPC next to JSON-RPC and HTTP+JSON, and the client picks it', async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
    };
    expect(card.supportedInterfaces).toEqual([
      { url: `${gateway.url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: gateway.url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: gateway.grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ]);
    expect(client.transport.protocolName).toBe('GRPC');
  });

  it.sequential('SendMessage (blocking) returns the task at the end of the turn, with the reply', async () => {
    const text = 'hello over gRPC';
    const task = await send(text);
    expect(task.status?.state).toBe(upstream.endState);
    expect(textOf(task.history.at(-1))).toBe(upstream.reply(text, 1));
    expect(artifactText(task)).toBe(upstream.reply(text, 1));
  });

  it.sequential('SendStreamingMessage yields the whole turn in order, each event as it arrives', async () => {
    const text = 'stream this turn';
    const payloads = await collect(client.sendMessageStream(sendRequest(text)));
    expect(payloads.map(outline)).toEqual(upstream.streamOutline(text, 1));
    const { taskId, contextId } = payloadRef(payloads[0] as Payload);
    for (const payload of payloads) expect(payloadRef(payload)).toEqual({ taskId, contextId });
    expect(streamedArtifactText(payloads)).toBe(upstream.reply(text, 1));

    // A slow turn: the first events are in the client's hands long before the turn ends.
    const slow = new StreamReader(client.sendMessageStream(sendRequest(`${upstream.slowPrefix} trickle`)));
    const first = await slow.expectNext();
    expect(first.$case).toBe('task');
    await slow.rest();
    expect((slow.closedAt ?? 0) - (slow.arrivals[0] ?? 0)).toBeGreaterThan(upstream.slowTurnMinMs / 2);
  });

  it.sequential('GetTask returns the task cut to historyLength; an unknown task is NOT_FOUND with TASK_NOT_FOUND', async () => {
    const text = 'remember me';
    const sent = await send(text);
    const last = await client.getTask({ tenant: '', id: sent.id, historyLength: 1 });
    expect(last).toMatchObject({ id: sent.id, contextId: sent.contextId, status: { state: upstream.endState } });
    expect(last.history).toHaveLength(1);
    expect(textOf(last.history[0])).toBe(upstream.reply(text, 1));

    const unknown = await grpcFailureOf(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }));
    expect(unknown).toMatchObject({ status: grpcStatus.NOT_FOUND, reason: 'TASK_NOT_FOUND' });
  });

  it.sequential('a follow-up on the same contextId continues the conversation (turn order through the core)', async () => {
    const first = await send('first turn');
    const second = await send('second turn', { contextId: first.contextId });
    expect(second.contextId).toBe(first.contextId);
    expect(textOf(second.history.at(-1))).toBe(upstream.reply('second turn', 2));
  });

  it.sequential('ListTasks lists the tasks created here and filters by contextId', async () => {
    const a1 = await send('list a1');
    const a2 = await send('list a2', { contextId: a1.contextId });
    await send('list b');
    const inA = await client.listTasks(listRequest({ contextId: a1.contextId }));
    expect(inA.tasks.map((task) => task.id).sort()).toEqual([a1.id, a2.id].sort());
    expect(inA.totalSize).toBe(2);
    const page1 = await client.listTasks(listRequest({ contextId: a1.contextId, pageSize: 1 }));
    const page2 = await client.listTasks(listRequest({ contextId: a1.contextId, pageSize: 1, pageToken: page1.nextPageToken }));
    expect([...page1.tasks, ...page2.tasks].map((task) => task.id).sort()).toEqual([a1.id, a2.id].sort());
  });

  it.sequential('CancelTask stops a running turn; a finished one is FAILED_PRECONDITION with TASK_NOT_CANCELABLE', async () => {
    const stream = new StreamReader(client.sendMessageStream(sendRequest(`${upstream.slowPrefix} cancel me`)));
    try {
      const { taskId } = payloadRef(await stream.expectNext());
      const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      expect(canceled).toMatchObject({ id: taskId, status: { state: TaskState.TASK_STATE_CANCELED } });
      expect((await stream.rest()).map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
    } finally {
      await stream.close();
    }
    const done = await send('already done');
    const error = await grpcFailureOf(client.cancelTask({ tenant: '', id: done.id, metadata: undefined }));
    expect(error).toMatchObject({ status: grpcStatus.FAILED_PRECONDITION, reason: 'TASK_NOT_CANCELABLE' });
  });

  it.sequential('SubscribeToTask on an active task starts with the Task, then follows the turn', async () => {
    const stream = new StreamReader(client.sendMessageStream(sendRequest(`${upstream.slowPrefix} follow me`)));
    const subscription = new StreamReader(client.resubscribeTask({ tenant: '', id: payloadRef(await stream.expectNext()).taskId }));
    try {
      const first = await subscription.expectNext();
      expect(first.$case).toBe('task');
      if (first.$case !== 'task') return;
      expect(ACTIVE_STATES).toContain(first.value.status?.state);
      await client.cancelTask({ tenant: '', id: first.value.id, metadata: undefined });
      const followed = await subscription.rest();
      expect(followed.map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
    } finally {
      await Promise.all([stream.close(), subscription.close()]);
    }
  });

  it.sequential('the push-config methods store, read, list and delete a config (push-notifications on)', async () => {
    const task = await send('push me');
    const ids = { tenant: '', taskId: task.id, id: 'grpc-hook' };
    const created = await client.createTaskPushNotificationConfig({
      ...ids,
      url: 'http://127.0.0.1:9/hook',
      token: 'tok',
      authentication: undefined,
    });
    expect(created).toMatchObject({ id: 'grpc-hook', taskId: task.id, url: 'http://127.0.0.1:9/hook' });
    expect(await client.getTaskPushNotificationConfig(ids)).toMatchObject({ id: 'grpc-hook', url: 'http://127.0.0.1:9/hook' });
    const listed = await client.transport.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' }, wire());
    expect(listed.configs.map((config) => config.id)).toEqual(['grpc-hook']);
    await client.deleteTaskPushNotificationConfig(ids);
    const gone = await grpcFailureOf(client.getTaskPushNotificationConfig(ids));
    expect(gone).toMatchObject({ status: grpcStatus.NOT_FOUND, reason: 'TASK_NOT_FOUND' });
  });

  it.sequential('GetExtendedAgentCard answers what the upstream answers, with the gateway as the endpoint', async () => {
    const answer = client.transport.getExtendedAgentCard({ tenant: '' }, wire());
    const expected = upstream.extendedCard;
    if ('errorReason' in expected) {
      const error = await grpcFailureOf(answer);
      expect(error).toMatchObject({ status: grpcStatus.FAILED_PRECONDITION, reason: expected.errorReason });
      expect(error.message).toContain(expected.message);
      return;
    }
    const card = await answer;
    expect(card.skills.map((skill) => skill.id)).toEqual(expected.skillIds);
    expect(card.supportedInterfaces.map((entry) => entry.url)).toEqual([`${gateway.url}/`, gateway.url, gateway.grpcAddress]);
  });

  it.sequential('a call without A2A-Version is FAILED_PRECONDITION with VERSION_NOT_SUPPORTED; bad params are INVALID_ARGUMENT', async () => {
    const noVersion = await grpcFailureOf(client.transport.getTask({ tenant: '', id: 'x', historyLength: undefined }, { serviceParameters: {} }));
    expect(noVersion).toMatchObject({ status: grpcStatus.FAILED_PRECONDITION, reason: 'VERSION_NOT_SUPPORTED' });
    expect(noVersion.message).toContain("No A2A-Version metadata was sent with the call, which A2A reads as version '0.3'");
    const badParams = await grpcFailureOf(client.getTask({ tenant: '', id: '', historyLength: undefined }));
    expect(badParams).toMatchObject({ status: grpcStatus.INVALID_ARGUMENT, reason: 'INVALID_PARAMS' });
  });

  it.sequential('every A2A call went over gRPC: the gateway logged all eleven methods there and none over HTTP', () => {
    expect(new Set(gateway.grpcLog().map((line) => line.method))).toEqual(new Set(V1_METHODS));
    const httpCalls = gateway.requestLog().filter((line) => line.surface === 'jsonrpc' || line.surface === 'rest');
    expect(httpCalls).toEqual([]);
  });
});

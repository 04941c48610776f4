/**
 * A gRPC-only agent behind the gateway: a real a2a-js 1.x server serving only the SDK's gRPC binding
 * (its card, over HTTP, lists one GRPC interface). The official a2a-js 1.x JSON-RPC client drives
 * every method through the gateway, and the official 0.2.5 client (Bailian's protocol) reaches the
 * same agent through the facade: the gateway calls the agent over gRPC for both.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import type { MessageSendParams } from 'a2a-sdk-025';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/model/index.js';
import {
  V1_WIRE,
  artifactText,
  asTask,
  cancelWhileSubscribed,
  collect,
  connect,
  listRequest,
  outline,
  rejectionOf,
  sendRequest,
  streamedArtifactText,
  textOf,
} from '../../support/sdk-v1-client.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { SDK_AGENT_NAME, SDK_SLOW_PREFIX, sdkReply, startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';

let agent: RunningSdkV1Agent;
let gateway: TestGateway;

beforeAll(async () => {
  agent = await startSdkV1Agent({ grpcOnly: true });
  gateway = await startTestGateway({ upstream: { url: agent.url, auth: { token: 'upstream-secret' } } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

describe('the a2a-js 1.x JSON-RPC client → gateway → a gRPC-only a2a-js 1.x server', () => {
  let client: Client;
  const send = async (text: string, ids: { contextId?: string } = {}) => asTask(await client.sendMessage(sendRequest(text, ids)));

  beforeAll(async () => {
    ({ client } = await connect(gateway.url, 'JSONRPC'));
  });

  it("serves the agent's card with the gateway's interfaces; the agent's gRPC address is not in it", async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card.name).toBe(SDK_AGENT_NAME);
    expect(JSON.stringify(card.supportedInterfaces)).not.toContain('GRPC');
    expect(client.transport.protocolName).toBe('JSONRPC');
  });

  it('SendMessage and a follow-up on the same context go through gRPC, with the credentials and version as metadata', async () => {
    const before = agent.grpcMetadata.length;
    const first = await send('hello gRPC agent');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(first)).toBe(sdkReply('hello gRPC agent', 1).full);
    const second = await send('again', { contextId: first.contextId });
    expect(textOf(second.history.at(-1))).toBe(sdkReply('again', 2).full);
    const seen = agent.grpcMetadata.slice(before);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const metadata of seen) expect(metadata).toMatchObject({ authorization: 'Bearer upstream-secret', 'a2a-version': '1.0' });
  });

  it('SendStreamingMessage relays the whole turn in order', async () => {
    const text = 'stream me';
    const payloads = await collect(client.sendMessageStream(sendRequest(text)));
    expect(payloads.map(outline)).toEqual([
      'task',
      `statusUpdate:${TaskState.TASK_STATE_WORKING}`,
      ...sdkReply(text, 1).chunks.map(() => 'artifactUpdate'),
      `statusUpdate:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
    expect(streamedArtifactText(payloads)).toBe(sdkReply(text, 1).full);
  });

  it("GetTask, ListTasks, and the agent's gRPC errors as the caller's JSON-RPC errors", async () => {
    const task = await send('find me');
    expect((await client.getTask({ tenant: '', id: task.id, historyLength: 1 })).history).toHaveLength(1);
    const listed = await client.listTasks(listRequest({ contextId: task.contextId }));
    expect(listed.tasks.map((entry) => entry.id)).toEqual([task.id]);
    const missing = await rejectionOf(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }));
    expect(missing).toMatchObject({ reason: 'TASK_NOT_FOUND', code: ErrorCode.TaskNotFound });
    const notCancelable = await rejectionOf(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }));
    expect(notCancelable).toMatchObject({ reason: 'TASK_NOT_CANCELABLE', code: ErrorCode.TaskNotCancelable });
  });

  it('CancelTask and SubscribeToTask on a running turn', async () => {
    const { canceled, subscribed, streamed } = await cancelWhileSubscribed(client, `${SDK_SLOW_PREFIX} long one`);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(subscribed.at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
    expect(streamed.at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
  });

  it("GetExtendedAgentCard: the agent's own gRPC answer (none configured: UNSUPPORTED_OPERATION)", async () => {
    const error = await rejectionOf(client.transport.getExtendedAgentCard({ tenant: '' }, V1_WIRE));
    expect(error).toMatchObject({ reason: 'UNSUPPORTED_OPERATION', code: ErrorCode.UnsupportedOperation });
  });

  it('every upstream call was gRPC: the agent has no JSON-RPC or HTTP+JSON routes at all', async () => {
    const rpc = await fetch(`${agent.url}/a2a/jsonrpc`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(rpc.status).toBe(404);
    expect(agent.grpcMetadata.length).toBeGreaterThan(8);
  });
});

describe('the a2a-js 0.2.5 client (Bailian) → facade → the gRPC-only agent', () => {
  const params = (text: string): MessageSendParams => ({
    message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'text', text }] },
  });

  it('message/send and message/stream get the reply', async () => {
    const client = new A2AClient(gateway.url);
    const sent: any = await client.sendMessage(params('from Bailian'));
    expect(sent.error).toBeUndefined();
    expect(JSON.stringify(sent.result)).toContain(sdkReply('from Bailian', 1).full);
    const events: any[] = [];
    for await (const event of client.sendMessageStream(params('streamed from Bailian'))) events.push(event);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true });
    expect(JSON.stringify(events)).toContain('streamed');
  });
});

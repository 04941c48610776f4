/**
 * A 1.0 agent that offers only HTTP+JSON behind the gateway: a real a2a-js 1.x server serving only the
 * SDK's REST binding (its card lists one HTTP+JSON interface, and there is no JSON-RPC route at all).
 * The official a2a-js 1.x client drives it through the gateway over both of the gateway's transports,
 * and the official 0.2.5 client reaches it through the facade: the gateway calls it over HTTP+JSON.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import type { MessageSendParams } from 'a2a-sdk-025';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/model/index.js';
import {
  TRANSPORTS,
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
  wireCode,
} from '../../support/sdk-v1-client.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { SDK_REST_PATH, SDK_SLOW_PREFIX, sdkReply, startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';

let agent: RunningSdkV1Agent;
let gateway: TestGateway;

beforeAll(async () => {
  agent = await startSdkV1Agent({ restOnly: true });
  gateway = await startTestGateway({ upstream: { url: agent.url, auth: { token: 'upstream-secret' } } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

/** The agent's HTTP+JSON calls (everything but its card), as `METHOD /path`. */
const restCalls = (from = 0): string[] =>
  agent.httpRequests
    .slice(from)
    .filter((seen) => seen.path.startsWith(SDK_REST_PATH))
    .map((seen) => `${seen.method} ${seen.path.slice(SDK_REST_PATH.length)}`);

describe.each(TRANSPORTS)('the a2a-js 1.x client over %s → gateway → an HTTP+JSON-only a2a-js 1.x server', (transport) => {
  let client: Client;
  const send = async (text: string, ids: { contextId?: string } = {}) => asTask(await client.sendMessage(sendRequest(text, ids)));

  beforeAll(async () => {
    ({ client } = await connect(gateway.url, transport));
  });

  it('SendMessage and a follow-up reach the agent over HTTP+JSON, with the credentials and A2A-Version 1.0', async () => {
    const before = agent.httpRequests.length;
    const first = await send('hello REST agent');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(first)).toBe(sdkReply('hello REST agent', 1).full);
    const second = await send('again', { contextId: first.contextId });
    expect(textOf(second.history.at(-1))).toBe(sdkReply('again', 2).full);
    expect(restCalls(before).filter((call) => call === 'POST /message:send')).toHaveLength(2);
    for (const seen of agent.httpRequests.slice(before).filter((entry) => entry.path.startsWith(SDK_REST_PATH))) {
      expect(seen).toMatchObject({ authorization: 'Bearer upstream-secret', a2aVersion: '1.0' });
    }
  });

  it('SendStreamingMessage relays the whole turn in order', async () => {
    const text = 'stream me over REST';
    const payloads = await collect(client.sendMessageStream(sendRequest(text)));
    expect(payloads.map(outline)).toEqual([
      'task',
      `statusUpdate:${TaskState.TASK_STATE_WORKING}`,
      ...sdkReply(text, 1).chunks.map(() => 'artifactUpdate'),
      `statusUpdate:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
    expect(streamedArtifactText(payloads)).toBe(sdkReply(text, 1).full);
  });

  it("GetTask with historyLength, ListTasks, and the agent's REST errors as the caller's errors", async () => {
    const task = await send('find me');
    const before = agent.httpRequests.length;
    expect((await client.getTask({ tenant: '', id: task.id, historyLength: 1 })).history).toHaveLength(1);
    expect(restCalls(before)).toContain(`GET /tasks/${task.id}`);
    const listed = await client.listTasks(listRequest({ contextId: task.contextId }));
    expect(listed.tasks.map((entry) => entry.id)).toEqual([task.id]);
    const missing = await rejectionOf(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }));
    expect(missing).toMatchObject({ reason: 'TASK_NOT_FOUND', code: wireCode(transport, ErrorCode.TaskNotFound) });
    const notCancelable = await rejectionOf(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }));
    expect(notCancelable).toMatchObject({ reason: 'TASK_NOT_CANCELABLE', code: wireCode(transport, ErrorCode.TaskNotCancelable) });
    expect(restCalls(before)).toContain(`POST /tasks/${task.id}:cancel`);
  });

  it('CancelTask and SubscribeToTask on a running turn', async () => {
    const { canceled, subscribed, streamed } = await cancelWhileSubscribed(client, `${SDK_SLOW_PREFIX} long one`);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(subscribed.at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
    expect(streamed.at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
  });
});

describe('the a2a-js 0.2.5 client (Bailian) → facade → the HTTP+JSON-only agent', () => {
  const params = (text: string): MessageSendParams => ({
    message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'text', text }] },
  });
  const shown = (events: any[]): string =>
    events
      .filter((event) => event.kind === 'artifact-update')
      .flatMap((event) => event.artifact.parts)
      .map((part: any) => part.text ?? '')
      .join('');

  it('message/send and message/stream show the whole reply', async () => {
    const client = new A2AClient(gateway.url);
    const sent: any = await client.sendMessage(params('from Bailian'));
    expect(sent.error).toBeUndefined();
    expect(sent.result.artifacts.flatMap((artifact: any) => artifact.parts.map((part: any) => part.text)).join('')).toBe(
      sdkReply('from Bailian', 1).full,
    );
    const events: any[] = [];
    for await (const event of client.sendMessageStream(params('streamed from Bailian'))) events.push(event);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true });
    expect(shown(events)).toBe(sdkReply('streamed from Bailian', 1).full);
  });

  it('no JSON-RPC route exists on the agent: every call above was HTTP+JSON', async () => {
    const rpc = await fetch(`${agent.url}/a2a/jsonrpc`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(rpc.status).toBe(404);
    expect(restCalls().length).toBeGreaterThan(10);
  });
});

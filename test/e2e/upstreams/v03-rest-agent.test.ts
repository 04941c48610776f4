/**
 * The official a2a-js 1.x client (ClientFactory from the gateway's card URL) → the gateway
 * (startGateway, the real composition) → a 0.3 agent that offers ONLY HTTP+JSON: detection picks
 * the REST client, and every call the gateway forwards arrives as 0.3 proto JSON under `/v1/`.
 * Also the 0.2.5 client on the facade: its JSON-RPC is translated, never relayed to this agent.
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { MessageSendParams } from 'a2a-sdk-025';
import { A2AClient } from 'a2a-sdk-025/client';
import type { Client } from 'a2a-sdk-1/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from 'a2a-sdk-1/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { StreamReader, connectClient, outline, reconstructedText, taskIdOf } from './sdk1-client.js';
import { artifactText, asTask, listRequest, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { REST_AGENT_NAME, startFakeV03Rest, type FakeV03Rest } from '../../support/fake-v03-rest.js';

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a2a-js 1.x client over %s → gateway → 0.3 HTTP+JSON-only agent', (transport: TransportName) => {
  let agent: FakeV03Rest;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startFakeV03Rest();
    gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
    client = await connectClient(gateway.url, transport);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const send = async (text: string, options: { returnImmediately?: boolean; taskId?: string } = {}): Promise<Task> => {
    const request = sendRequest(text, options.taskId ? { taskId: options.taskId } : {});
    if (options.returnImmediately) {
      request.configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };
    }
    return asTask(await client.sendMessage(request));
  };

  /** Nothing ever reached the agent except its card and its `/v1/` routes: no JSON-RPC. */
  const onlyRest = () => agent.requests.every((request) => request.path === '/.well-known/agent-card.json' || request.path.startsWith('/agent/v1/'));

  it('serves the agent as a 1.0 agent; its extended card comes from GET /v1/card', async () => {
    expect(client.protocolVersion).toBe('1.0');
    const card = await client.getAgentCard();
    expect(card.name).toBe(REST_AGENT_NAME);
    expect(card.description).toMatch(/\(extended\)$/);
    expect(card.skills.map((skill) => skill.id)).toEqual(['echo', 'secret']);
    expect(card.supportedInterfaces.every((entry) => entry.url.startsWith(gateway.url) && entry.protocolVersion === '1.0')).toBe(true);
    expect(agent.routed('/card')).not.toHaveLength(0);
  });

  it('SendMessage: the finished task in 1.0 form; the agent got message:send in 0.3 proto JSON', async () => {
    const task = await send('hello');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toBe('echo: hello');
    expect(artifactText(task)).toBe('echo: hello');
    expect(task.status?.timestamp).toBe('2025-07-01T10:00:01.000Z');
    const sent = agent.routed('message:send').at(-1);
    expect(sent?.body).toMatchObject({ message: { role: 'ROLE_USER', content: [{ text: 'hello' }] }, configuration: { blocking: true } });
    expect(sent?.headers['a2a-version']).toBeUndefined();
    expect(onlyRest()).toBe(true);
  });

  it('SendMessage: a direct message answer is a Message with a contextId', async () => {
    const result = await client.sendMessage(sendRequest('direct'));
    expect('status' in result).toBe(false);
    if ('status' in result) return;
    expect(textOf(result)).toBe('a direct answer');
    expect(result.contextId).toBe('ctx-direct');
  });

  it('SendStreamingMessage: a Task first, the updates in order, and the stream closes after `final` (the agent keeps it open)', async () => {
    const closedBefore = agent.streamsClosedByClient();
    const payloads = await new StreamReader(client.sendMessageStream(sendRequest('stream me'))).rest();
    expect(payloads.map(outline)).toEqual([
      'task',
      'statusUpdate:TASK_STATE_WORKING',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate:TASK_STATE_COMPLETED',
    ]);
    expect(reconstructedText(payloads)).toBe('echo: stream me');
    await expect.poll(() => agent.streamsClosedByClient()).toBe(closedBefore + 1);
  });

  it('GetTask is answered by the agent; an unknown task is TaskNotFound', async () => {
    const sent = await send('remember me');
    const task = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(artifactText(task)).toBe('echo: remember me');
    expect(agent.routed(`/tasks/${sent.id}`)).not.toHaveLength(0);
    await expect(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('CancelTask: a running task ends CANCELED (0.3 CANCELLED); again, or on a finished task, it is TaskNotCancelable', async () => {
    const running = await send('later', { returnImmediately: true });
    expect(running.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const canceled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: '', id: running.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
    const finished = await send('done already');
    await expect(client.cancelTask({ tenant: '', id: finished.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('SubscribeToTask: the Task first, then the rest of the turn to its end; a finished task is UnsupportedOperation', async () => {
    const running = await send('watch me', { returnImmediately: true });
    const payloads = await new StreamReader(client.resubscribeTask({ tenant: '', id: running.id })).rest();
    expect(payloads[0]?.$case).toBe('task');
    expect(payloads.map(taskIdOf).every((id) => id === running.id)).toBe(true);
    expect(payloads.map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_COMPLETED');
    expect(reconstructedText(payloads)).toBe('finished later');
    expect(agent.routed(`/tasks/${running.id}:subscribe`)).toHaveLength(1);

    const error = await new StreamReader(client.resubscribeTask({ tenant: '', id: running.id })).rest().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnsupportedOperationError);
  });

  it('ListTasks is answered by the gateway registry; the agent is never asked', async () => {
    const a = await send('list one');
    const b = await send('list two');
    const listed = await client.listTasks(listRequest());
    expect(listed.tasks.map((task) => task.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(agent.requests.some((request) => request.path === '/agent/v1/tasks')).toBe(false);
    expect(onlyRest()).toBe(true);
  });
});

describe('a2a-js 0.2.5 client → gateway facade → 0.3 HTTP+JSON-only agent', () => {
  let agent: FakeV03Rest;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startFakeV03Rest();
    gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('message/send reads the turn through POST /v1/message:stream, as message/stream does (the JSON-RPC pass-through stays off)', async () => {
    const client = new A2AClient(gateway.url);
    const params = {
      message: { kind: 'message', role: 'user', messageId: 'facade-1', parts: [{ kind: 'text', text: 'from bailian' }] },
    } as MessageSendParams;
    const answer = (await client.sendMessage(params)) as {
      result?: { kind: string; status: { state: string }; artifacts?: Array<{ parts: Array<{ text?: string }> }> };
    };
    expect(answer.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(JSON.stringify(answer.result?.artifacts)).toContain('echo: from bailian');
    expect(agent.routed('message:stream')).toHaveLength(1);
    expect(agent.routed('message:send')).toHaveLength(0);
    expect(agent.requests.every((request) => request.method === 'GET' || request.path.startsWith('/agent/v1/'))).toBe(true);
  });
});

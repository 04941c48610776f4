import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { UpstreamConfig } from '../../../src/config/schema.js';
import type { CallContext } from '../../../src/core/agent-port.js';
import { A2AError, AgentCard, type StreamResponse } from '../../../src/model/index.js';
import { createV1Upstream, jsonRpcEndpoint, type V1Upstream } from '../../../src/upstream/v1/client.js';
import { startFakeIacCode, type FakeIacCode, type FakeIacCodeOptions } from '../../support/fake-iac-code.js';
import { rejection } from '../../support/rejection.js';
import { collect } from '../../support/collect.js';
import { sendMessageParams } from '../../support/v1-message.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setup(
  fakeOptions: FakeIacCodeOptions = {},
  config: Record<string, unknown> = {},
): Promise<{ fake: FakeIacCode; upstream: V1Upstream }> {
  const fake = await startFakeIacCode(fakeOptions);
  open.push(fake);
  const upstream = createV1Upstream({ baseUrl: fake.url, config: UpstreamConfig.parse(config) });
  open.push(upstream);
  return { fake, upstream };
}

const ctx = (extra: Partial<CallContext> = {}): CallContext => ({ principal: '', signal: new AbortController().signal, ...extra });

/** Kind and state (or text) of each event, for comparing against the captured turn. */
function outline(event: StreamResponse): string {
  if ('task' in event) return `task:${event.task.status.state}`;
  if ('artifactUpdate' in event) return `artifact:${event.artifactUpdate.artifact.parts[0]?.url ?? ''}`;
  if ('message' in event) return 'message';
  const { status } = event.statusUpdate;
  const text = status.message?.parts[0]?.text;
  return text === undefined ? status.state : `${status.state}:${status.message?.messageId}:${text}`;
}

describe('card and endpoint', () => {
  it('fetches and validates the card with A2A-Version and credentials, and uses its JSONRPC interface', async () => {
    const { fake, upstream } = await setup({ auth: { token: 'tok' }, rpcPath: '/rpc', restFirst: true }, { auth: { token: 'tok' } });
    const card = await upstream.fetchCard();
    expect(AgentCard.safeParse(card).success).toBe(true);
    expect(card.name).toBe('iac-code');
    // HTTP+JSON is listed first; the JSONRPC entry is taken, not the first one.
    expect(upstream.endpoint()).toBe(`${fake.url}/rpc`);
    const cardRequest = fake.requests[0];
    expect(cardRequest?.path).toBe('/.well-known/agent-card.json');
    expect(cardRequest?.headers['a2a-version']).toBe('1.0');
    expect(cardRequest?.headers.authorization).toBe('Bearer tok');

    await upstream.getExtendedAgentCard(ctx());
    expect(fake.rpcRequests('GetExtendedAgentCard')[0]?.path).toBe('/rpc');
  });

  it('fetches the card once for a burst of first calls', async () => {
    const { fake, upstream } = await setup();
    const results = await Promise.all([1, 2, 3].map(() => upstream.sendMessage(sendMessageParams('hi'), ctx())));
    expect(results).toHaveLength(3);
    expect(fake.requests.filter((r) => r.path === '/.well-known/agent-card.json')).toHaveLength(1);
  });

  it('a caller that gives up while the card loads fails alone; the shared fetch settles for the rest', async () => {
    const { fake, upstream } = await setup({}, { 'headers-timeout-ms': 300 });
    fake.injectFault('hang-before-headers', { route: 'card' });
    const gone = new AbortController();
    const leaving = upstream.getTask({ id: 'x' }, ctx({ signal: gone.signal }));
    const staying = upstream.getTask({ id: 'x' }, ctx());
    gone.abort(A2AError.internal('caller left'));
    expect(await rejection(leaving)).toMatchObject({ message: 'caller left' });
    expect(await rejection(staying)).toMatchObject({ code: -32603, message: 'Upstream agent card is unavailable' });
    expect(fake.requests.filter((r) => r.path === '/.well-known/agent-card.json')).toHaveLength(1);
    // The failed fetch is not remembered: the next call fetches again and goes through.
    expect(await rejection(upstream.getTask({ id: 'x' }, ctx()))).toMatchObject({ code: -32001 });
  });

  it('falls back to the legacy url, then the base URL, and reaches 0.0.0.0 the way the card was reached', () => {
    const base = { name: 'a', description: 'b', version: '1', capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [] };
    const rest = { url: 'http://h:1', protocolBinding: 'HTTP+JSON' };
    expect(jsonRpcEndpoint({ ...base, supportedInterfaces: [rest], url: 'http://h:1/legacy' }, 'http://h:1/')).toBe('http://h:1/legacy');
    expect(jsonRpcEndpoint({ ...base, supportedInterfaces: [rest] }, 'http://base:9/')).toBe('http://base:9/');
    expect(
      jsonRpcEndpoint({ ...base, supportedInterfaces: [{ url: 'http://0.0.0.0:41242/', protocolBinding: 'JSONRPC' }] }, 'http://10.1.2.3:41242/'),
    ).toBe('http://10.1.2.3:41242/');
    expect(jsonRpcEndpoint({ ...base, supportedInterfaces: [{ url: '/a2a', protocolBinding: 'JSONRPC' }] }, 'http://h:2/p/')).toBe('http://h:2/a2a');
  });

  it("takes a binding's 1.0 interface over a 0.3 one listed before it at another URL (a2a-js 1.x with 0.3 compat)", () => {
    const base = { name: 'a', description: 'b', version: '1', capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [] };
    const legacy = { url: 'http://h:1/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' };
    const current = { url: 'http://h:1/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };
    expect(jsonRpcEndpoint({ ...base, supportedInterfaces: [legacy, current] }, 'http://h:1/')).toBe('http://h:1/v1');
    // A card that lists only 0.3 interfaces (a 0.3 card read as 1.0) keeps its first.
    expect(jsonRpcEndpoint({ ...base, supportedInterfaces: [legacy] }, 'http://h:1/')).toBe('http://h:1/v03');
  });

  it('reports an unreachable or unauthorized card as -32603 without detail', async () => {
    const { upstream } = await setup({ auth: { apiKey: 'right' } }, { auth: { 'api-key': 'wrong' } });
    const error = await rejection(upstream.fetchCard());
    // Refused credentials are told as an agent the gateway cannot use; why is the operator's (the error's cause, for the log).
    expect(error).toMatchObject({ code: -32603, message: 'Upstream agent is unavailable', agentHttpStatus: 401 });
    expect((error.cause as Error).message).toMatch(/refused the gateway's credentials .*HTTP 401; upstream\.auth/);
    // A call needs the card first, so it fails the same way.
    expect(await rejection(upstream.getTask({ id: 't' }, ctx()))).toMatchObject({ code: -32603 });
  });
});

describe('AgentPort methods against the fake iac-code', () => {
  it('SendMessage returns the captured task shape and sends the 1.0 headers and our own request id', async () => {
    const { fake, upstream } = await setup({}, { auth: { 'api-key': 'k1' } });
    const result = await upstream.sendMessage(sendMessageParams('make vpc'), ctx({ extensions: ['urn:a', 'urn:b'] }));
    if (!('task' in result)) throw new Error('expected a task');
    const { task } = result;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.history?.map((m) => `${m.messageId.replace(task.id, 'T')}:${m.parts[0]?.text}`)).toEqual([
      'T-message:Hello ',
      'T-message:world.',
      'T-message:Done.',
      'T-2:Done.',
    ]);
    expect(task.artifacts?.[0]?.parts[0]?.url).toMatch(/^iac-code-artifact:\/\//);
    expect(task.metadata).toEqual({ iac_code: { iacCodeSessionId: expect.any(String) } });

    const sent = fake.rpcRequests('SendMessage')[0];
    expect(sent?.headers['a2a-version']).toBe('1.0');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers['x-api-key']).toBe('k1');
    expect(sent?.headers['a2a-extensions']).toBe('urn:a, urn:b');
    expect(String(sent?.rpcId)).toMatch(/^a2a-bridge-\d+$/);
  });

  it('SendStreamingMessage yields the captured event sequence', async () => {
    const { upstream } = await setup();
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('make vpc'), ctx()));
    const taskId = 'task' in events[0]! ? events[0].task.id : '';
    expect(events.map(outline).map((line) => line.replaceAll(taskId, 'T').replace(/\/\/[^/]+\//, '//ART/'))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING:T-message:Hello ',
      'TASK_STATE_WORKING:T-message:world.',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'artifact:iac-code-artifact://ART/main.tf',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING:T-message:Done.',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING:T-2:Done.',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
    const final = events[13];
    expect(final && 'statusUpdate' in final ? final.statusUpdate.metadata : undefined).toMatchObject({
      iac_code: { assistantFinal: { complete: true } },
    });
  });

  it('follow-up turns, GetTask with historyLength, ListTasks', async () => {
    const { upstream } = await setup();
    const first = await upstream.sendMessage(sendMessageParams('one'), ctx());
    if (!('task' in first)) throw new Error('expected a task');
    const { id, contextId } = first.task;
    const follow = await collect(upstream.sendStreamingMessage(sendMessageParams('two', { taskId: id, contextId }), ctx()));
    expect(outline(follow[0]!)).toBe('TASK_STATE_SUBMITTED'); // no Task frame for an existing task

    const task = await upstream.getTask({ id, historyLength: 2 }, ctx());
    expect(task.id).toBe(id);
    expect(task.history).toHaveLength(2);
    const listed = await upstream.listTasks({ contextId: contextId! }, ctx());
    expect(listed.tasks.map((t) => t.id)).toEqual([id]);
    expect(listed).toMatchObject({ pageSize: 50, totalSize: 1, nextPageToken: '' });
  });

  it('maps upstream JSON-RPC errors to the same code', async () => {
    const { upstream } = await setup();
    expect(await rejection(upstream.getTask({ id: 'nope' }, ctx()))).toMatchObject({ code: -32001, message: 'Task not found' });
    const send = upstream.sendMessage(sendMessageParams('x', { taskId: 'missing' }), ctx());
    expect(await rejection(send)).toMatchObject({ code: -32001, message: 'Task missing not found' });
    // Pre-stream errors arrive as plain JSON on a streaming call.
    const stream = collect(upstream.sendStreamingMessage(sendMessageParams('x', { taskId: 'missing' }), ctx()));
    expect(await rejection(stream)).toMatchObject({ code: -32001 });
    expect(await rejection(upstream.listTasks({ pageSize: 0 }, ctx()))).toMatchObject({ code: -32602 });
  });

  it('CancelTask: -32002 for a finished turn, CANCELED for a running one (its stream ends CANCELED)', async () => {
    const { upstream } = await setup({ frameDelayMs: 30 });
    const done = await upstream.sendMessage(sendMessageParams('x'), ctx());
    if (!('task' in done)) throw new Error('expected a task');
    expect(await rejection(upstream.cancelTask({ id: done.task.id }, ctx()))).toMatchObject({ code: -32002 });

    const iterator = upstream.sendStreamingMessage(sendMessageParams('long'), ctx())[Symbol.asyncIterator]();
    const firstEvent = (await iterator.next()).value as StreamResponse;
    const taskId = 'task' in firstEvent ? firstEvent.task.id : '';
    const canceled = await upstream.cancelTask({ id: taskId }, ctx());
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const rest: StreamResponse[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(outline(rest.at(-1)!)).toBe(`TASK_STATE_CANCELED:${taskId}-5:Task canceled.`);
  });

  it('SubscribeToTask: the task snapshot, then the rest of the turn; -32001 for an inactive task', async () => {
    const { upstream } = await setup({ frameDelayMs: 20 });
    const iterator = upstream.sendStreamingMessage(sendMessageParams('long'), ctx())[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as StreamResponse;
    const taskId = 'task' in first ? first.task.id : '';
    const subscribed = await collect(upstream.subscribeToTask({ id: taskId }, ctx()));
    expect(outline(subscribed[0]!)).toMatch(/^task:/);
    expect(outline(subscribed.at(-1)!)).toBe('TASK_STATE_INPUT_REQUIRED');
    await iterator.return?.();

    const error = await rejection(collect(upstream.subscribeToTask({ id: taskId }, ctx())));
    expect(error).toMatchObject({ code: -32001, message: `Task ${taskId} is not active` });
  });

  it.each(['null', 'empty'] as const)('push config create/get/list/delete (delete answers %s)', async (deleteResult) => {
    const { upstream } = await setup({ deleteResult, pushNotifications: true });
    const sent = await upstream.sendMessage(sendMessageParams('x'), ctx());
    const taskId = 'task' in sent ? sent.task.id : '';
    const config = { taskId, url: 'https://hooks.example.com/a2a', token: 'tk' };
    const created = await upstream.createTaskPushNotificationConfig(config, ctx());
    expect(created).toMatchObject({ ...config, id: taskId });
    expect(await upstream.getTaskPushNotificationConfig({ taskId, id: taskId }, ctx())).toMatchObject(config);
    expect((await upstream.listTaskPushNotificationConfigs({ taskId }, ctx())).configs).toHaveLength(1);
    await expect(upstream.deleteTaskPushNotificationConfig({ taskId, id: taskId }, ctx())).resolves.toBeUndefined();
    expect(await rejection(upstream.getTaskPushNotificationConfig({ taskId, id: taskId }, ctx()))).toMatchObject({ code: -32001 });
    const local = upstream.createTaskPushNotificationConfig({ taskId, url: 'http://127.0.0.1/x' }, ctx());
    expect(await rejection(local)).toMatchObject({ code: -32602 });
  });

  it('push methods answer -32003 when the agent has push disabled', async () => {
    const { upstream } = await setup({ pushNotifications: false });
    const error = await rejection(upstream.listTaskPushNotificationConfigs({ taskId: 't' }, ctx()));
    expect(error).toMatchObject({ code: -32003 });
  });

  it('GetExtendedAgentCard returns the extended card', async () => {
    const { upstream } = await setup();
    const card = await upstream.getExtendedAgentCard(ctx());
    expect(card.skills.map((s) => s.id)).toContain('iac_code_runtime_details');
  });
});

describe('fake iac-code itself', () => {
  it('answers -32009 to a 1.0 method without A2A-Version, as plain JSON', async () => {
    const fake = await startFakeIacCode();
    open.push(fake);
    const response = await request(fake.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: '1', method: 'SendStreamingMessage', params: sendMessageParams('x') }),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(await response.body.json()).toMatchObject({ error: { code: -32009 }, id: '1', jsonrpc: '2.0' });
  });
});

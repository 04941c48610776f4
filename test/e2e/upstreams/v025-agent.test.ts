/**
 * The official a2a-js 1.x client → the gateway (startGateway, the real composition) → a REAL a2a-js
 * 0.2.5 server: every 1.0 method, over JSON-RPC and over HTTP+JSON.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { PushNotificationNotSupportedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from 'a2a-sdk-1/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { V025_AGENT_NAME, startSdkV025Agent, v025Reply, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { StreamReader, connectClient, outline, reconstructedText, taskIdOf } from './sdk1-client.js';
import { artifactText, asTask, listRequest, sendRequest, textOf, type TransportName, V1_WIRE } from '../../support/sdk-v1-client.js';

async function startPair(agentOptions = {}, gatewayOverrides: Record<string, unknown> = {}) {
  const agent = await startSdkV025Agent(agentOptions);
  const gateway = await startGateway(
    defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url }, ...gatewayOverrides }),
    createLogger('silent'),
  );
  return { agent, gateway };
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a2a-js 1.x client over %s → gateway → a2a-js 0.2.5 agent', (transport: TransportName) => {
  let agent: RunningSdkV025Agent;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    ({ agent, gateway } = await startPair());
    client = await connectClient(gateway.url, transport);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const send = async (text: string, ids: { contextId?: string; taskId?: string } = {}): Promise<Task> =>
    asTask(await client.sendMessage(sendRequest(text, ids)));

  it('serves the agent as a 1.0 agent, extended card included, with the gateway as its interface', async () => {
    expect(client.protocolVersion).toBe('1.0');
    const card = await client.getAgentCard(); // the card offers the extended card: this is GetExtendedAgentCard
    expect(card.name).toBe(V025_AGENT_NAME);
    expect(card.description).toMatch(/\(extended\)$/);
    expect(card.skills.map((skill) => skill.id)).toEqual(['echo', 'secret']);
    expect(card.supportedInterfaces.every((entry) => entry.url.startsWith(gateway.url) && entry.protocolVersion === '1.0')).toBe(true);
    expect(agent.received.some((request) => request.path === '/a2a/agent/authenticatedExtendedCard')).toBe(true);
  });

  it('SendMessage: the finished task, states and timestamps in 1.0 form; the agent saw message/send without A2A-Version', async () => {
    const task = await send('hello');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toBe(v025Reply('hello', 1).full);
    expect(artifactText(task)).toBe(v025Reply('hello', 1).full);
    expect(task.status?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const call = agent.received.findLast((request) => request.rpcMethod === 'message/send');
    expect(call?.headers['a2a-version']).toBeUndefined();
  });

  it('SendMessage: a direct Message reply comes back as a Message with a contextId', async () => {
    const result = await client.sendMessage(sendRequest('message: hi'));
    expect('status' in result).toBe(false);
    if ('status' in result) return;
    expect(textOf(result)).toBe(v025Reply('message: hi', 1).full);
    expect(result.contextId).not.toBe('');
  });

  it('SendStreamingMessage: a Task first, every update in order, and the stream closes at the end of the turn', async () => {
    const payloads = await new StreamReader(client.sendMessageStream(sendRequest('stream me'))).rest();
    const reply = v025Reply('stream me', 1);
    expect(payloads.map(outline)).toEqual([
      'task',
      'statusUpdate:TASK_STATE_WORKING',
      ...reply.chunks.map(() => 'artifactUpdate'),
      'statusUpdate:TASK_STATE_COMPLETED',
    ]);
    expect(reconstructedText(payloads)).toBe(reply.full);
  });

  it('a stream that ends input-required closes too, and the task continues with a follow-up', async () => {
    const first = await new StreamReader(client.sendMessageStream(sendRequest('ask: where to?'))).rest();
    expect(first.map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_INPUT_REQUIRED');
    const taskId = taskIdOf(first[0]!);
    const task = await send('north', { taskId });
    expect(task.id).toBe(taskId);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a follow-up stream opens with the task as recorded (history, the question, the follow-up; artifacts), not a bare Task, and the record keeps them', async () => {
    const contextId = `follow-up-opening-${transport.replace(/\W/g, '')}`;
    const asked = await new StreamReader(client.sendMessageStream(sendRequest('ask: which region?', { contextId }))).rest();
    const taskId = taskIdOf(asked[0]!);
    const recordedTask = async (): Promise<Task> =>
      (await client.listTasks(listRequest({ contextId, includeArtifacts: true }))).tasks.find((task) => task.id === taskId)!;
    const before = await recordedTask();
    expect(before.artifacts.length).toBeGreaterThan(0);
    const answered = await new StreamReader(client.sendMessageStream(sendRequest('north', { taskId, contextId }))).rest();
    const opening = answered[0];
    expect(opening?.$case).toBe('task');
    if (opening?.$case !== 'task') return;
    const question = textOf(before.status?.message);
    expect(opening.value.history.map(textOf)).toEqual([...before.history.map(textOf), question, 'north']);
    expect(opening.value.artifacts.map((artifact) => artifact.artifactId)).toEqual(before.artifacts.map((artifact) => artifact.artifactId));
    expect(opening.value.status?.state).not.toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const recordedHistory = [...before.history.map(textOf), question, 'north'];
    expect((await recordedTask()).history.map(textOf).slice(0, recordedHistory.length)).toEqual(recordedHistory);
  });

  it("an answer the agent gives as a Message inside its task's stream completes the task with it, and the conversation goes on", async () => {
    const contextId = `answered-in-a-message-${transport.replace(/\W/g, '')}`;
    const streamed = await new StreamReader(client.sendMessageStream(sendRequest('answer: three VPCs', { contextId }))).rest();
    expect(streamed.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'statusUpdate:TASK_STATE_COMPLETED']);
    const last = streamed.at(-1);
    expect(last?.$case === 'statusUpdate' ? textOf(last.value.status?.message) : undefined).toBe(v025Reply('answer: three VPCs', 1).full);
    const next = await send('and now?', { contextId });
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('an agent that throws mid-turn fails the turn of its own task (not one the SDK made up), and the conversation goes on', async () => {
    const contextId = `throws-${transport.replace(/\W/g, '')}`;
    const streamed = await new StreamReader(client.sendMessageStream(sendRequest('throw: deploy', { contextId }))).rest();
    expect(streamed.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'statusUpdate:TASK_STATE_FAILED']);
    const taskIds = new Set(streamed.map((payload) => (payload.$case === 'task' ? payload.value.id : (payload.value as { taskId: string }).taskId)));
    expect(taskIds.size).toBe(1);
    const listed = await client.listTasks(listRequest({ contextId }));
    expect(listed.tasks.map((task) => [task.id, task.status?.state])).toEqual([[[...taskIds][0], TaskState.TASK_STATE_FAILED]]);
    expect((await send('and now?', { contextId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Its reason says what went wrong, without the path or the token in the agent's exception.
    const failed = streamed.at(-1);
    const reason = failed?.$case === 'statusUpdate' ? textOf(failed.value.status?.message) : '';
    expect(reason).toContain('failed to read [path] with Bearer [redacted]');
    expect(JSON.stringify(listed)).not.toMatch(/alice|sk-live/);
    // Answered whole (blocking), the task's history holds the reason too: scrubbed there as well.
    const sent = await send('throw: deploy', { contextId });
    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    const all = await client.listTasks(listRequest({ contextId, historyLength: 10 }));
    for (const answer of [sent, got, all]) expect(JSON.stringify(answer)).not.toMatch(/alice|sk-live/);
    expect(sent.history?.map(textOf).at(-1)).toContain('failed to read [path] with Bearer [redacted]');
  });

  it("a turn the agent ends in 0.2.5's terminal 'unknown' is FAILED, answered or read again", async () => {
    const sent = await send('unknown: what became of it?');
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(sent.status?.message)).toBe(v025Reply('unknown: what became of it?', 1).full);
    expect((await client.getTask({ tenant: '', id: sent.id, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_FAILED);
  });

  it("a stream the agent ends in 'unknown' ends with the turn, FAILED, as at any terminal state (not -32006, 'ended early')", async () => {
    const streamed = await new StreamReader(client.sendMessageStream(sendRequest('unknown: and this one?'))).rest();
    expect(streamed.map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_FAILED');
    expect(reconstructedText(streamed)).toBe(v025Reply('unknown: and this one?', 1).full);
  });

  it('GetTask is answered by the agent; an unknown task is TaskNotFound', async () => {
    const sent = await send('remember me');
    const task = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe(v025Reply('remember me', 1).full);
    await expect(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(agent.received.some((request) => request.rpcMethod === 'tasks/get')).toBe(true);
  });

  it('historyLength as 1.0 means it (unset: all, 0: none, n: the last n), whatever a 0.2.5 agent makes of it', async () => {
    const first = await send('ask: where to?');
    const sent = await send('north', { taskId: first.id });
    const lengthOf = async (historyLength: number | undefined) => (await client.getTask({ tenant: '', id: sent.id, historyLength })).history.length;
    const full = await lengthOf(undefined);
    expect(full).toBeGreaterThanOrEqual(3);
    expect(await lengthOf(0)).toBe(0);
    expect(await lengthOf(1)).toBe(1);
    expect(await lengthOf(2)).toBe(2);
    const configured = async (historyLength: number) =>
      asTask(
        await client.sendMessage({
          ...sendRequest('ask: and then?'),
          configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength, returnImmediately: false },
        }),
      ).history.length;
    expect(await configured(0)).toBe(0);
    expect(await configured(1)).toBe(1);
  });

  it("SendStreamingMessage's historyLength bounds the Task the stream opens with, as SendMessage's; the registry keeps the whole history", async () => {
    const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: 0, returnImmediately: false };
    const streamed = await new StreamReader(client.sendMessageStream({ ...sendRequest('ask: how far?'), configuration })).rest();
    const opening = streamed[0];
    expect(opening?.$case).toBe('task');
    if (opening?.$case !== 'task') return;
    expect(opening.value.history).toEqual([]);
    const listed = await client.listTasks(listRequest({ contextId: opening.value.contextId }));
    expect(listed.tasks[0]?.history.map(textOf)[0]).toBe('ask: how far?');
  });

  it('ListTasks is answered by the gateway registry: created tasks, the contextId filter, paging', async () => {
    const a = await send('list one');
    const b = await send('list two', { contextId: a.contextId });
    const other = await send('list three');
    const all = await client.listTasks(listRequest());
    const ids = all.tasks.map((task) => task.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id, other.id]));
    const inContext = await client.listTasks(listRequest({ contextId: a.contextId }));
    expect(inContext.tasks.map((task) => task.id).sort()).toEqual([a.id, b.id].sort());
    const page1 = await client.listTasks(listRequest({ contextId: a.contextId, pageSize: 1 }));
    expect(page1.tasks).toHaveLength(1);
    expect(page1.nextPageToken).not.toBe('');
    const page2 = await client.listTasks(listRequest({ contextId: a.contextId, pageSize: 1, pageToken: page1.nextPageToken }));
    expect([...page1.tasks, ...page2.tasks].map((task) => task.id).sort()).toEqual([a.id, b.id].sort());
    expect(agent.received.some((request) => request.rpcMethod?.includes('list') && request.rpcMethod.startsWith('tasks/'))).toBe(false);
  });

  it('CancelTask: a running task ends CANCELED (its stream closes CANCELED); a finished one is TaskNotCancelable', async () => {
    const stream = new StreamReader(client.sendMessageStream(sendRequest('slow: cancel me')));
    const first = await stream.next();
    const taskId = taskIdOf(first!);
    const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await stream.rest()).map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_CANCELED');
    await expect(client.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
    const finished = await send('done already');
    await expect(client.cancelTask({ tenant: '', id: finished.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('SubscribeToTask on a running task: two subscribers each get the Task first, then the turn to its end', async () => {
    const stream = new StreamReader(client.sendMessageStream(sendRequest('slow: watch me')));
    const taskId = taskIdOf((await stream.next())!);
    const subscribers = [
      new StreamReader(client.resubscribeTask({ tenant: '', id: taskId })),
      new StreamReader(client.resubscribeTask({ tenant: '', id: taskId })),
    ];
    const [one, two, own] = await Promise.all([...subscribers.map((reader) => reader.rest()), stream.rest()]);
    const reply = v025Reply('slow: watch me', 1).full;
    for (const payloads of [one, two!]) {
      expect(payloads[0]?.$case).toBe('task');
      // The Task in its current state, history included (A2A 1.0 §3.1.6): a2a-js 0.2.5 sends none unless asked.
      const opening = payloads[0]?.$case === 'task' ? payloads[0].value : undefined;
      expect(opening?.history?.[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'slow: watch me' });
      expect(payloads.map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_COMPLETED');
      expect(reconstructedText(payloads)).toBe(reply);
      expect(payloads.filter((payload) => payload.$case === 'artifactUpdate').length).toBeGreaterThan(0);
    }
    expect(reconstructedText(own!)).toBe(reply);
    // Each subscriber has its own upstream tasks/resubscribe (after the tasks/get that gives its first event).
    expect(agent.received.filter((request) => request.rpcMethod === 'tasks/resubscribe').length).toBeGreaterThanOrEqual(2);
  });

  it('SubscribeToTask of a turn that is over: a finished task is UnsupportedOperation, an input-required one its Task alone', async () => {
    const finished = await send('over');
    const paused = await send('ask: anything?');
    const failure = await new StreamReader(client.resubscribeTask({ tenant: '', id: finished.id })).rest().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(UnsupportedOperationError);
    const payloads = await new StreamReader(client.resubscribeTask({ tenant: '', id: paused.id })).rest();
    expect(payloads.map((payload) => payload.$case)).toEqual(['task']);
    const [snapshot] = payloads;
    expect(snapshot?.$case === 'task' && snapshot.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(snapshot?.$case === 'task' && snapshot.value.status?.message?.parts.length).toBeGreaterThan(0);
  });

  it('push config methods answer PushNotificationNotSupported while the gateway push is off', async () => {
    const task = await send('push?');
    const config = { tenant: '', id: 'cfg-1', taskId: task.id, url: 'https://example.com/hook', token: '', authentication: undefined };
    await expect(client.transport.createTaskPushNotificationConfig(config, V1_WIRE)).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    await expect(client.transport.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' }, V1_WIRE)).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
    await expect(
      client.transport.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, V1_WIRE),
    ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    await expect(client.transport.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' }, V1_WIRE)).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
  });
});

describe('push config methods with push-notifications on: the gateway owns them, the 0.2.5 agent never sees them', () => {
  let pair: { agent: RunningSdkV025Agent; gateway: RunningGateway };
  let client: Client;
  beforeAll(async () => {
    pair = await startPair(
      { pushNotifications: true },
      { 'push-notifications': true, 'persistence-dir': mkdtempSync(join(tmpdir(), 'a2a-bridge-v025-push-')) },
    );
    client = await connectClient(pair.gateway.url, 'JSONRPC');
  });
  afterAll(async () => {
    await pair?.gateway.close();
    await pair?.agent.close();
  });

  it('create and get are answered by the gateway with the secret masked, nothing is forwarded', async () => {
    const task = asTask(await client.sendMessage(sendRequest('push me')));
    const config = { tenant: '', id: 'cfg-1', taskId: task.id, url: 'https://example.com/hook', token: 'tok', authentication: undefined };
    const created = await client.transport.createTaskPushNotificationConfig(config, V1_WIRE);
    expect(created).toMatchObject({ taskId: task.id, url: 'https://example.com/hook', id: 'cfg-1' });
    expect(created.token).not.toBe('tok');
    const fetched = await client.transport.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' }, V1_WIRE);
    expect(fetched).toMatchObject({ taskId: task.id, url: 'https://example.com/hook' });
    const methods = pair.agent.received.map((request) => request.rpcMethod);
    expect(methods.some((method) => method?.startsWith('tasks/pushNotificationConfig/'))).toBe(false);
  });
});

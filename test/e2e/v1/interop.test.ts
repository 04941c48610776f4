/**
 * Acceptance of the gateway core: the official a2a-js 1.x client, built from the gateway's card URL and
 * preferring JSON-RPC or HTTP+JSON, drives every A2A 1.0 method through the real gateway in front of
 * (a) the embedded demo agent and (b) a real a2a-js 1.x server.
 */
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { PushNotificationNotSupportedError } from 'a2a-sdk-1/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/model/index.js';
import type { TestGateway } from '../../support/gateway.js';
import {
  StreamReader,
  TRANSPORTS,
  V1_WIRE,
  artifactText,
  asTask,
  cardResolver,
  collect,
  connect,
  listRequest,
  outline,
  payloadRef,
  rejectionOf,
  sendRequest,
  streamedArtifactText,
  textOf,
  wireCode,
  type Payload,
  type RecordedRequest,
} from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';

const ACTIVE_STATES = [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING];

describe.each(UPSTREAMS)('the gateway in front of the $name', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  describe.each(TRANSPORTS)('driven by the official a2a-js 1.x client over %s', (transport) => {
    let client: Client;
    let requests: RecordedRequest[];
    let firstLogLine: number;
    const send = async (text: string, ids: { contextId?: string } = {}) => asTask(await client.sendMessage(sendRequest(text, ids)));

    beforeAll(async () => {
      firstLogLine = gateway.requestLog().length;
      ({ client, requests } = await connect(gateway.url, transport));
    });

    it('discovers the card through the gateway: the interfaces point at the gateway, not the upstream', async () => {
      const card = await cardResolver([]).resolve(gateway.url);
      expect(card.name).toBe(upstream.agentName);
      const interfaces = card.supportedInterfaces.map(({ url, protocolBinding, protocolVersion }) => ({ url, protocolBinding, protocolVersion }));
      expect(interfaces).toEqual([
        { url: `${gateway.url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: gateway.url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ]);
      if (gateway.upstreamUrl) expect(JSON.stringify(card)).not.toContain(gateway.upstreamUrl);
      expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });

      expect(client.transport.protocolName).toBe(transport);
      expect(client.protocolVersion).toBe('1.0');
      expect(requests[0]).toMatchObject({ method: 'GET', url: `${gateway.url}/.well-known/agent-card.json` });
    });

    it('sendMessage (blocking) returns the task at the end of the turn, with the reply', async () => {
      const text = 'hello through the gateway';
      const task = await send(text);
      expect(task.id).not.toBe('');
      expect(task.contextId).not.toBe('');
      expect(task.status?.state).toBe(upstream.endState);
      expect(textOf(task.history.at(-1))).toBe(upstream.reply(text, 1));
      expect(artifactText(task)).toBe(upstream.reply(text, 1));
    });

    it('sendMessageStream yields a Task first, then the whole turn in order, and closes at its end', async () => {
      const text = 'stream this turn';
      const payloads = await collect(client.sendMessageStream(sendRequest(text)));
      expect(payloads.map(outline)).toEqual(upstream.streamOutline(text, 1));
      const { taskId, contextId } = payloadRef(payloads[0] as Payload);
      for (const payload of payloads) expect(payloadRef(payload)).toEqual({ taskId, contextId });
      expect(streamedArtifactText(payloads)).toBe(upstream.reply(text, 1));
    });

    it('getTask returns the task, cut to the last historyLength messages', async () => {
      const text = 'remember me';
      const sent = await send(text);
      const whole = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
      expect(whole).toMatchObject({ id: sent.id, contextId: sent.contextId, status: { state: upstream.endState } });
      expect(whole.history.length).toBe(sent.history.length);
      const last = await client.getTask({ tenant: '', id: sent.id, historyLength: 1 });
      expect(last.history).toHaveLength(1);
      expect(textOf(last.history[0])).toBe(upstream.reply(text, 1));

      const unknown = await rejectionOf(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }));
      expect(unknown).toMatchObject({ reason: 'TASK_NOT_FOUND', code: wireCode(transport, ErrorCode.TaskNotFound) });
    });

    it('a follow-up on the same contextId continues the conversation', async () => {
      const first = await send('first turn');
      const second = await send('second turn', { contextId: first.contextId });
      expect(second.contextId).toBe(first.contextId);
      expect(second.id).not.toBe(first.id);
      expect(second.status?.state).toBe(upstream.endState);
      expect(textOf(second.history.at(-1))).toBe(upstream.reply('second turn', 2));
    });

    it('listTasks (the gateway registry) lists the tasks created here and filters by contextId', async () => {
      const a1 = await send('list a1');
      const a2 = await send('list a2', { contextId: a1.contextId });
      const b = await send('list b');

      const inA = await client.listTasks(listRequest({ contextId: a1.contextId }));
      expect(inA.tasks.map((task) => task.id).sort()).toEqual([a1.id, a2.id].sort());
      expect(inA.totalSize).toBe(2);
      for (const task of inA.tasks) expect(task.status?.state).toBe(upstream.endState);

      const all = await client.listTasks(listRequest());
      expect(all.tasks.map((task) => task.id)).toEqual(expect.arrayContaining([a1.id, a2.id, b.id]));

      const ended = await client.listTasks(listRequest({ contextId: a1.contextId, status: upstream.endState }));
      expect(ended.tasks).toHaveLength(2);
      const working = await client.listTasks(listRequest({ contextId: a1.contextId, status: TaskState.TASK_STATE_WORKING }));
      expect(working.tasks).toHaveLength(0);
      const page1 = await client.listTasks(listRequest({ contextId: a1.contextId, pageSize: 1 }));
      const page2 = await client.listTasks(listRequest({ contextId: a1.contextId, pageSize: 1, pageToken: page1.nextPageToken }));
      expect([...page1.tasks, ...page2.tasks].map((task) => task.id).sort()).toEqual([a1.id, a2.id].sort());
      expect(page2.nextPageToken).toBe('');
    });

    it('cancelTask stops a running turn: the task and its stream end CANCELED', async () => {
      const stream = new StreamReader(client.sendMessageStream(sendRequest(`${upstream.slowPrefix} cancel me`)));
      try {
        const first = await stream.expectNext();
        expect(first.$case).toBe('task');
        const { taskId } = payloadRef(first);

        const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
        expect(canceled).toMatchObject({ id: taskId, status: { state: TaskState.TASK_STATE_CANCELED } });
        const rest = await stream.rest();
        expect(rest.map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
        const fetched = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
        expect(fetched.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      } finally {
        await stream.close();
      }
    });

    it('cancelTask on a finished task fails with TaskNotCancelable (-32002)', async () => {
      const task = await send('already done');
      const error = await rejectionOf(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }));
      expect(error).toMatchObject({ reason: 'TASK_NOT_CANCELABLE', code: wireCode(transport, ErrorCode.TaskNotCancelable) });
    });

    it('resubscribeTask on an active task starts with the Task, then follows the turn', async () => {
      const stream = new StreamReader(client.sendMessageStream(sendRequest(`${upstream.slowPrefix} follow me`)));
      const subscription = new StreamReader(client.resubscribeTask({ tenant: '', id: payloadRef(await stream.expectNext()).taskId }));
      try {
        const first = await subscription.expectNext();
        expect(first.$case).toBe('task');
        if (first.$case !== 'task') return;
        const taskId = first.value.id;
        expect(ACTIVE_STATES).toContain(first.value.status?.state);

        await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
        const followed = await subscription.rest();
        expect(followed.map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
        for (const payload of followed) expect(payloadRef(payload).taskId).toBe(taskId);
        expect((await stream.rest()).map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_CANCELED}`);
      } finally {
        await Promise.all([stream.close(), subscription.close()]);
      }
    });

    it("resubscribeTask on a turn that is over: the Task alone when it waits for input (the stream ends there), the agent's own refusal when terminal", async () => {
      const task = await send('nothing left to follow');
      if (upstream.endState === TaskState.TASK_STATE_INPUT_REQUIRED) {
        const payloads = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
        expect(payloads.map(outline)).toEqual(['task']);
        const [snapshot] = payloads;
        expect(snapshot?.$case === 'task' && snapshot.value).toMatchObject({ id: task.id, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
        expect(snapshot?.$case === 'task' && textOf(snapshot.value.status?.message)).toBe(textOf(task.status?.message));
      } else {
        const error = await rejectionOf(client.resubscribeTask({ tenant: '', id: task.id }));
        expect(error).toMatchObject({ reason: 'UNSUPPORTED_OPERATION', code: wireCode(transport, ErrorCode.UnsupportedOperation) });
      }
    });

    it('push-config methods answer PushNotificationNotSupported (-32003): push-notifications is off', async () => {
      const task = await send('push?');
      const expected = {
        reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
        code: wireCode(transport, ErrorCode.PushNotificationNotSupported),
      };
      const ids = { tenant: '', taskId: task.id, id: 'push-1' };
      const config = { ...ids, url: 'https://example.com/hook', token: '', authentication: undefined };
      const page = { ...ids, pageSize: 10, pageToken: '' };
      // The Client itself refuses three of them, without a request, because the card says pushNotifications: false.
      const sentBefore = requests.length;
      expect(() => client.getTaskPushNotificationConfig(ids)).toThrow(PushNotificationNotSupportedError);
      expect(requests.length).toBe(sentBefore);
      // Its transport sends them: the gateway must answer each one itself.
      const { transport: wire } = client;
      expect(await rejectionOf(wire.createTaskPushNotificationConfig(config, V1_WIRE))).toMatchObject(expected);
      expect(await rejectionOf(wire.getTaskPushNotificationConfig(ids, V1_WIRE))).toMatchObject(expected);
      expect(await rejectionOf(wire.listTaskPushNotificationConfig(page, V1_WIRE))).toMatchObject(expected);
      expect(await rejectionOf(client.deleteTaskPushNotificationConfig(ids))).toMatchObject(expected);
    });

    it('getExtendedAgentCard answers what the upstream answers, with the gateway as the endpoint', async () => {
      const answer = client.transport.getExtendedAgentCard({ tenant: '' }, V1_WIRE);
      const expected = upstream.extendedCard;
      if ('errorReason' in expected) {
        const error = await rejectionOf(answer);
        expect(error).toMatchObject({ reason: expected.errorReason, code: wireCode(transport, ErrorCode.UnsupportedOperation) });
        expect(error.message).toContain(expected.message);
        return;
      }
      const card = await answer;
      expect(card.name).toBe(upstream.agentName);
      expect(card.skills.map((skill) => skill.id)).toEqual(expected.skillIds);
      expect(card.supportedInterfaces.map((entry) => entry.url)).toEqual([`${gateway.url}/`, gateway.url]);
      // The Client fetches it on its own when the card offers it.
      expect((await client.getAgentCard()).skills.map((skill) => skill.id)).toEqual(expected.skillIds);
    });

    it('every call went over the chosen binding (client requests and the gateway request log agree)', () => {
      const calls = requests.filter((request) => !request.url.endsWith('/.well-known/agent-card.json'));
      expect(calls.length).toBeGreaterThan(20);
      for (const call of calls) {
        if (transport === 'JSONRPC') expect(call).toMatchObject({ method: 'POST', url: `${gateway.url}/` });
        else expect(call.url).toMatch(/\/(message:(send|stream)|tasks.*|extendedAgentCard)$/);
      }
      const logged = gateway
        .requestLog()
        .slice(firstLogLine)
        .filter((line) => line.surface === 'jsonrpc' || line.surface === 'rest');
      expect(new Set(logged.map((line) => line.surface))).toEqual(new Set([transport === 'JSONRPC' ? 'jsonrpc' : 'rest']));
      expect(new Set(logged.map((line) => line.method))).toEqual(
        new Set([
          'SendMessage',
          'SendStreamingMessage',
          'GetTask',
          'ListTasks',
          'CancelTask',
          'SubscribeToTask',
          'CreateTaskPushNotificationConfig',
          'GetTaskPushNotificationConfig',
          'ListTaskPushNotificationConfigs',
          'DeleteTaskPushNotificationConfig',
          'GetExtendedAgentCard',
        ]),
      );
    });
  });
});

/**
 * createV03RestUpstream against the hand-written 0.3 HTTP+JSON agent: every AgentPort method, the
 * wire it writes (routes, proto JSON bodies, headers) and how it reads answers, streams and errors.
 * Against agents that answer wrongly: rest-misbehaving.test.ts.
 */
import { LegacyRestTransport } from 'a2a-sdk-1/compat/v0_3/client';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { ErrorCode, type StreamResponse } from '../../../src/model/index.js';
import { createV03RestUpstream, type V03RestUpstream } from '../../../src/upstream/v03/rest-client.js';
import { closeAll, ctx, open, outline } from '../support.js';
import { REST_AGENT_NAME, startFakeV03Rest, type FakeV03Rest, type FakeV03RestOptions } from '../../support/fake-v03-rest.js';
import { collect } from '../../support/collect.js';
import { rejection } from '../../support/rejection.js';
import { sendMessageParams } from '../../support/v1-message.js';

afterEach(closeAll);

async function setup(
  config: Record<string, unknown> = {},
  agentOptions: FakeV03RestOptions = {},
): Promise<{ agent: FakeV03Rest; upstream: V03RestUpstream }> {
  const agent = await startFakeV03Rest(agentOptions);
  open.push(agent);
  const upstream = createV03RestUpstream({ baseUrl: `${agent.url}/`, config: UpstreamConfig.parse(config) });
  open.push(upstream);
  return { agent, upstream };
}

describe('the fake agent speaks 0.3 HTTP+JSON as a2a-js reads it', () => {
  it("a2a-js's own 0.3 REST client (LegacyRestTransport) sends, reads tasks and streams from it", async () => {
    const agent = await startFakeV03Rest();
    open.push(agent);
    const client = new LegacyRestTransport({ endpoint: agent.restUrl });
    const part = { content: { $case: 'text' as const, value: 'hi' }, metadata: undefined, filename: '', mediaType: '' };
    const request = {
      tenant: '',
      message: { messageId: 'm-1', contextId: '', taskId: '', role: 1, parts: [part], metadata: undefined, extensions: [], referenceTaskIds: [] },
      configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: false, taskPushNotificationConfig: undefined },
      metadata: undefined,
    };
    const sent = await client.sendMessage(request);
    expect(sent).toMatchObject({ status: { state: 3 } });
    expect(agent.routed('message:send')[0]?.body).toMatchObject({ message: { content: [{ text: 'hi' }], role: 'ROLE_USER' } });
    expect(await client.getTask({ tenant: '', id: (sent as { id: string }).id, historyLength: undefined })).toMatchObject({ status: { state: 3 } });

    const cases: string[] = [];
    for await (const event of client.sendMessageStream(request)) {
      cases.push(event.payload?.$case ?? '');
      if (cases.length === 4) break; // the fake leaves the stream open after `final`
    }
    expect(cases).toEqual(['statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
  });
});

describe('createV03RestUpstream', () => {
  it('fetchCard: the 0.3 card in the 1.0 model; its HTTP+JSON interface is the endpoint', async () => {
    const { agent, upstream } = await setup();
    const card = await upstream.fetchCard();
    expect(card.name).toBe(REST_AGENT_NAME);
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${agent.url}/agent`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' });
    expect(upstream.endpoint()).toBe(`${agent.url}/agent`);
  });

  it('SendMessage: a proto JSON body (content, ROLE_USER, blocking: true), credentials, no A2A-Version; the task back in 1.0 form', async () => {
    const { agent, upstream } = await setup({ auth: { token: 'secret-token' } });
    const answer = await upstream.sendMessage({ ...sendMessageParams('hello', { contextId: 'c-9' }) }, ctx({ extensions: ['urn:x'] }));
    expect(answer).toMatchObject({
      task: {
        contextId: 'c-9',
        status: {
          state: 'TASK_STATE_COMPLETED',
          timestamp: '2025-07-01T10:00:01.000Z',
          message: { role: 'ROLE_AGENT', parts: [{ text: 'echo: hello' }] },
        },
        artifacts: [{ artifactId: 'reply', parts: [{ text: 'echo: hello' }] }],
      },
    });
    const [sent] = agent.routed('message:send');
    expect(sent?.body).toEqual({
      message: { messageId: expect.any(String), contextId: 'c-9', role: 'ROLE_USER', content: [{ text: 'hello' }] },
      configuration: { blocking: true },
    });
    expect(sent?.headers.authorization).toBe('Bearer secret-token');
    expect(sent?.headers['a2a-version']).toBeUndefined();
    expect(sent?.headers['x-a2a-extensions']).toBe('urn:x');
    expect(sent?.headers['content-type']).toBe('application/json');
  });

  it('SendMessage: returnImmediately to an agent that streams is a message:stream answered with its first event, read on to the end of the turn', async () => {
    const { agent, upstream } = await setup();
    const readOn: StreamResponse[] = [];
    async function* recorded(rest: AsyncIterable<StreamResponse>): AsyncGenerator<StreamResponse> {
      for await (const event of rest) yield (readOn.push(event), event);
    }
    const working = await upstream.sendMessage(
      { ...sendMessageParams('later'), configuration: { returnImmediately: true } },
      ctx({ readOn: recorded }),
    );
    expect('task' in working && working.task.status.state).toBe('TASK_STATE_WORKING');
    expect([agent.routed('message:send'), agent.routed('message:stream')[0]?.body]).toMatchObject([[], { configuration: { blocking: false } }]);
    // Read on past the call, through what the caller's context adds, to the turn's end: the agent ends it canceled.
    await upstream.cancelTask({ id: 'task' in working ? working.task.id : '' }, ctx());
    await expect.poll(() => readOn.map(outline)).toEqual(['status:TASK_STATE_CANCELED']);
    expect(agent.streamsClosedByClient()).toBe(0);
  });

  it('SendMessage: returnImmediately to an agent that does not stream becomes blocking: false; a direct message answer gets a contextId', async () => {
    const { agent, upstream } = await setup({}, { card: { capabilities: { streaming: false } } });
    const working = await upstream.sendMessage({ ...sendMessageParams('later'), configuration: { returnImmediately: true } }, ctx());
    expect('task' in working && working.task.status.state).toBe('TASK_STATE_WORKING');
    expect(agent.routed('message:send')[0]?.body).toMatchObject({ configuration: { blocking: false } });
    const direct = await upstream.sendMessage(sendMessageParams('direct', { contextId: 'c-1' }), ctx());
    expect(direct).toEqual({
      message: { messageId: expect.any(String), role: 'ROLE_AGENT', contextId: 'ctx-direct', parts: [{ text: 'a direct answer' }] },
    });
  });

  it('SendStreamingMessage: a SUBMITTED Task first (synthesised from the opening update), the chunks, the final status; the stream ends at final although the agent keeps it open', async () => {
    const { agent, upstream } = await setup();
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('stream me'), ctx()));
    expect(events.map(outline)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:echo: ',
      'artifact:stream me',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(events[3]).toMatchObject({ artifactUpdate: { append: true, lastChunk: true } });
    await expect.poll(() => agent.streamsClosedByClient()).toBe(1);
  });

  it('GetTask with historyLength, CancelTask (CANCELLED → CANCELED), and their errors', async () => {
    const { agent, upstream } = await setup();
    const created = await upstream.sendMessage({ ...sendMessageParams('x'), configuration: { returnImmediately: true } }, ctx());
    const id = 'task' in created ? created.task.id : '';
    const task = await upstream.getTask({ id, historyLength: 1 }, ctx());
    expect(task.history).toHaveLength(1);
    expect(agent.requests.at(-1)?.query.get('historyLength')).toBe('1');
    expect((await upstream.cancelTask({ id }, ctx())).status.state).toBe('TASK_STATE_CANCELED');
    expect(agent.routed(':cancel')[0]?.body).toEqual({ name: `tasks/${id}` });

    const notCancelable = await rejection(upstream.cancelTask({ id }, ctx()));
    expect([notCancelable.code, notCancelable.message]).toEqual([ErrorCode.TaskNotCancelable, 'Task cannot be canceled']);
    const unknown = await rejection(upstream.getTask({ id: 'nope' }, ctx()));
    expect([unknown.code, unknown.message]).toEqual([ErrorCode.TaskNotFound, 'Task not found: nope']);
    const unknownCancel = await rejection(upstream.cancelTask({ id: 'nope' }, ctx()));
    expect(unknownCancel.code).toBe(ErrorCode.TaskNotFound);
  });

  it('SubscribeToTask: the snapshot first (the agent repeating it is dropped), then the rest; a finished task is not active', async () => {
    const { upstream } = await setup();
    const created = await upstream.sendMessage({ ...sendMessageParams('x'), configuration: { returnImmediately: true } }, ctx());
    const id = 'task' in created ? created.task.id : '';
    const events = await collect(upstream.subscribeToTask({ id }, ctx()));
    expect(events.map(outline)).toEqual(['task:TASK_STATE_WORKING', 'artifact:finished later', 'status:TASK_STATE_COMPLETED']);
    const done = await rejection(collect(upstream.subscribeToTask({ id }, ctx())));
    expect([done.code, done.message]).toEqual([ErrorCode.TaskNotFound, `Task ${id} is not active`]);
  });

  it('push notification configs: create, get, list, delete over /pushNotificationConfigs, flat 1.0 configs back', async () => {
    const { agent, upstream } = await setup();
    const created = await upstream.sendMessage({ ...sendMessageParams('x'), configuration: { returnImmediately: true } }, ctx());
    const taskId = 'task' in created ? created.task.id : '';
    const config = await upstream.createTaskPushNotificationConfig(
      { taskId, url: 'https://hook.example/a', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'c' } },
      ctx(),
    );
    expect(config).toEqual({
      taskId,
      id: expect.stringMatching(/^cfg-/),
      url: 'https://hook.example/a',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
    expect(agent.routed('/pushNotificationConfigs')[0]?.body).toEqual({
      name: `tasks/${taskId}/pushNotificationConfigs/`,
      pushNotificationConfig: { url: 'https://hook.example/a', token: 'tok', authentication: { schemes: ['Bearer'], credentials: 'c' } },
    });
    const id = config.id ?? '';
    expect(await upstream.getTaskPushNotificationConfig({ taskId, id }, ctx())).toEqual(config);
    expect(await upstream.listTaskPushNotificationConfigs({ taskId }, ctx())).toEqual({ configs: [config] });
    await upstream.deleteTaskPushNotificationConfig({ taskId, id }, ctx());
    expect(agent.requests.at(-1)?.method).toBe('DELETE');
    expect(await upstream.listTaskPushNotificationConfigs({ taskId }, ctx())).toEqual({ configs: [] });
    expect((await rejection(upstream.getTaskPushNotificationConfig({ taskId, id }, ctx()))).code).toBe(ErrorCode.TaskNotFound);
  });

  it('GetExtendedAgentCard: GET /v1/card, proto security kept in the 1.0 shape', async () => {
    const { upstream } = await setup();
    const card = await upstream.getExtendedAgentCard(ctx());
    expect(card.description).toMatch(/\(extended\)$/);
    expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } } });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
    expect(card.skills.map((skill) => [skill.id, skill.securityRequirements?.length ?? 0])).toEqual([
      ['echo', 0],
      ['secret', 1],
    ]);
  });

  it('ListTasks is refused with -32004 (the gateway registry answers it)', async () => {
    const { upstream } = await setup();
    expect((await rejection(upstream.listTasks({}, ctx()))).code).toBe(ErrorCode.UnsupportedOperation);
  });
});

/**
 * The 0.2.5/0.3 client's unary calls, card and extended card against a hand-written agent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCard, ErrorCode } from '../../../src/model/index.js';
import { extendedCardUrls } from '../../../src/upstream/v025/card.js';
import { defaultCard, json, rpcError, rpcResult } from '../../support/fake-v025.js';
import { closeAll, ctx, setup, v025 } from '../support.js';
import { rejection } from '../../support/rejection.js';
import { sendMessageParams } from '../../support/v1-message.js';

afterEach(closeAll);

describe('card and endpoint', () => {
  it('fetches the 0.2.5 card (agent.json, credentials, no A2A-Version) as a 1.0 card and follows its url', async () => {
    const { fake, upstream } = await setup({}, { auth: { token: 'tok' } });
    const card = await upstream.fetchCard();
    expect(AgentCard.safeParse(card).success).toBe(true);
    expect(card.supportedInterfaces).toEqual([{ url: `${fake.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.2.5' }]);
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect(upstream.endpoint()).toBe(`${fake.url}/rpc`);
    const cardCall = fake.calls[0]!;
    expect(cardCall.path).toBe('/.well-known/agent.json');
    expect(cardCall.headers.authorization).toBe('Bearer tok');
    expect(cardCall.headers['a2a-version']).toBeUndefined();
  });

  it('the 0.3 dialect reads agent-card.json first and falls back to agent.json', async () => {
    const { fake, upstream } = await setup({ cardPath: '/.well-known/agent-card.json', card: { protocolVersion: '0.3.0' } }, {}, '0.3');
    expect((await upstream.fetchCard()).supportedInterfaces[0]?.protocolVersion).toBe('0.3.0');
    expect(fake.calls.map((call) => call.path)).toEqual(['/.well-known/agent-card.json']);
    const legacy = await setup({}, {}, '0.3');
    await legacy.upstream.fetchCard();
    expect(legacy.fake.calls.map((call) => call.path)).toEqual(['/.well-known/agent-card.json', '/.well-known/agent.json']);
  });

  it('an unreachable or malformed card is an error; the first call fetches the card once', async () => {
    const missing = await setup({ card: null });
    expect((await rejection(missing.upstream.fetchCard())).code).toBe(ErrorCode.Internal);
    const malformed = await setup({ card: { name: 42 } });
    expect((await rejection(malformed.upstream.fetchCard())).code).toBe(ErrorCode.InvalidAgentResponse);

    const { fake, upstream } = await setup({ rpc: { 'tasks/get': (call, res) => rpcResult(call, res, v025.task('working')) } });
    await Promise.all([upstream.getTask({ id: 't-1' }, ctx()), upstream.getTask({ id: 't-1' }, ctx())]);
    expect(fake.calls.filter((call) => call.path === '/.well-known/agent.json')).toHaveLength(1);
  });
});

describe('unary calls', () => {
  it('SendMessage: blocking ⇄ returnImmediately, acceptedOutputModes always sent, Task and Message results', async () => {
    // An agent that streams is sent a returnImmediately turn as a stream (immediate.test.ts).
    const { fake, upstream } = await setup({
      card: { capabilities: { streaming: false } },
      rpc: {
        'message/send': (call, res) => {
          const text = (call.params as { message: { parts: Array<{ text: string }> } }).message.parts[0]?.text;
          rpcResult(
            call,
            res,
            text === 'direct' ? v025.message('hi') : v025.task('completed', { status: { state: 'completed', timestamp: '2025-01-02T03:04:05' } }),
          );
        },
      },
    });
    const task = await upstream.sendMessage({ ...sendMessageParams('go'), configuration: { returnImmediately: true } }, ctx());
    expect(task).toEqual({ task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-02T03:04:05Z' } } });
    expect(fake.rpcCalls('message/send')[0]?.params).toMatchObject({ configuration: { acceptedOutputModes: [], blocking: false } });
    const message = await upstream.sendMessage(sendMessageParams('direct', { contextId: 'ctx-1' }), ctx());
    expect(message).toEqual({ message: { messageId: 'm-a', role: 'ROLE_AGENT', parts: [{ text: 'hi' }], contextId: 'ctx-1' } });
    expect((fake.rpcCalls('message/send')[1]?.params as Record<string, unknown>).configuration).toBeUndefined();
  });

  it('SendMessage: a Message naming a task the agent does not know (it keeps no tasks) stays a Message', async () => {
    const { fake, upstream } = await setup({
      rpc: {
        'message/send': (call, res) => rpcResult(call, res, { ...v025.message('hi'), taskId: 'stamped', contextId: 'ctx-1' }),
        'tasks/get': (call, res) => rpcError(call, res, { code: -32001, message: 'Task not found' }),
      },
    });
    const answer = await upstream.sendMessage(sendMessageParams('go', { contextId: 'ctx-1' }), ctx());
    expect(answer).toEqual({ message: { messageId: 'm-a', role: 'ROLE_AGENT', parts: [{ text: 'hi' }], taskId: 'stamped', contextId: 'ctx-1' } });
    expect(fake.rpcCalls('tasks/get')).toHaveLength(1);
  });

  it('GetTask and CancelTask translate the task; upstream errors keep their code (-32001, -32002)', async () => {
    const { fake, upstream } = await setup({
      rpc: {
        'tasks/get': (call, res) =>
          (call.params as { id: string }).id === 't-1'
            ? rpcResult(call, res, v025.task('working'))
            : rpcError(call, res, { code: -32001, message: 'Task not found' }),
        'tasks/cancel': (call, res) => rpcError(call, res, { code: -32002, message: 'Task not cancelable: t-1' }),
      },
    });
    expect(await upstream.getTask({ id: 't-1', historyLength: 2 }, ctx())).toEqual({
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_WORKING' },
    });
    expect(fake.rpcCalls('tasks/get')[0]?.params).toEqual({ id: 't-1', historyLength: 2 });
    expect((await rejection(upstream.getTask({ id: 'nope' }, ctx()))).code).toBe(ErrorCode.TaskNotFound);
    const cancel = await rejection(upstream.cancelTask({ id: 't-1' }, ctx()));
    expect(cancel.code).toBe(ErrorCode.TaskNotCancelable);
    expect(cancel.message).toBe('Task not cancelable: t-1');
  });

  it('codes outside 0.2.5 pass through when legal and become -32603 otherwise; a malformed error is -32006', async () => {
    let answer: unknown = { code: -32050, message: 'custom' };
    const { upstream } = await setup({ rpc: { 'tasks/get': (call, res) => rpcError(call, res, answer) } });
    expect((await rejection(upstream.getTask({ id: 't' }, ctx()))).code).toBe(-32050);
    answer = { code: 12, message: 'odd' };
    expect((await rejection(upstream.getTask({ id: 't' }, ctx()))).code).toBe(ErrorCode.Internal);
    answer = { message: 'no code' };
    expect((await rejection(upstream.getTask({ id: 't' }, ctx()))).code).toBe(ErrorCode.InvalidAgentResponse);
  });

  it('ListTasks is refused (-32004) without asking the agent', async () => {
    const { fake, upstream } = await setup();
    expect((await rejection(upstream.listTasks({}, ctx()))).code).toBe(ErrorCode.UnsupportedOperation);
    expect(fake.calls).toHaveLength(0);
  });

  it('push configs: nested ⇄ flat, task id ⇄ config id, bare list wrapped, null delete', async () => {
    const stored = { taskId: 't-1', pushNotificationConfig: { id: 'cfg', url: 'https://hook', authentication: { schemes: ['Bearer'] } } };
    const { fake, upstream } = await setup({
      rpc: {
        'tasks/pushNotificationConfig/set': (call, res) => rpcResult(call, res, call.params),
        'tasks/pushNotificationConfig/get': (call, res) => rpcResult(call, res, stored),
        'tasks/pushNotificationConfig/list': (call, res) => rpcResult(call, res, [stored]),
        'tasks/pushNotificationConfig/delete': (call, res) => rpcResult(call, res, null),
      },
    });
    const flat = { taskId: 't-1', id: 'cfg', url: 'https://hook', authentication: { scheme: 'Bearer' } };
    expect(await upstream.createTaskPushNotificationConfig(flat, ctx())).toEqual(flat);
    expect(fake.rpcCalls('tasks/pushNotificationConfig/set')[0]?.params).toEqual(stored);
    expect(await upstream.getTaskPushNotificationConfig({ taskId: 't-1', id: 'cfg' }, ctx())).toEqual(flat);
    expect(fake.rpcCalls('tasks/pushNotificationConfig/get')[0]?.params).toEqual({ id: 't-1', pushNotificationConfigId: 'cfg' });
    expect(await upstream.listTaskPushNotificationConfigs({ taskId: 't-1', pageSize: 5 }, ctx())).toEqual({ configs: [flat] });
    expect(fake.rpcCalls('tasks/pushNotificationConfig/list')[0]?.params).toEqual({ id: 't-1' });
    await expect(upstream.deleteTaskPushNotificationConfig({ taskId: 't-1', id: 'cfg' }, ctx())).resolves.toBeUndefined();
    expect(fake.rpcCalls('tasks/pushNotificationConfig/delete')[0]?.params).toEqual({ id: 't-1', pushNotificationConfigId: 'cfg' });
  });
});

describe('extended card', () => {
  it('0.2.5: HTTP GET, moving on from a 404 to `{url}/../agent/authenticatedExtendedCard`, with credentials', async () => {
    const { fake, upstream } = await setup(
      {
        routes: {
          '/agent/authenticatedExtendedCard': (call, res) =>
            call.headers.authorization === 'Bearer tok' ? json(res, 200, { ...defaultCard('http://x'), name: 'extended' }) : json(res, 401, {}),
        },
      },
      { auth: { token: 'tok' } },
    );
    const card = await upstream.getExtendedAgentCard(ctx());
    expect(card.name).toBe('extended');
    expect(fake.calls.map((call) => call.path)).toEqual([
      '/.well-known/agent.json',
      '/rpc/agent/authenticatedExtendedCard',
      '/agent/authenticatedExtendedCard',
    ]);
  });

  it('0.2.5: not served anywhere → -32007; refused → an internal error naming no secret; not offered → -32007 at once', async () => {
    const none = await setup();
    expect((await rejection(none.upstream.getExtendedAgentCard(ctx()))).code).toBe(ErrorCode.ExtendedAgentCardNotConfigured);

    const refused = await setup(
      { routes: { '/rpc/agent/authenticatedExtendedCard': (_call, res) => json(res, 403, {}) } },
      { auth: { token: 'tok' } },
    );
    const error = await rejection(refused.upstream.getExtendedAgentCard(ctx()));
    expect(error.code).toBe(ErrorCode.Internal);
    expect(error.message).not.toContain('tok');

    const notOffered = await setup({ card: { supportsAuthenticatedExtendedCard: false } });
    expect((await rejection(notOffered.upstream.getExtendedAgentCard(ctx()))).code).toBe(ErrorCode.ExtendedAgentCardNotConfigured);
    expect(notOffered.fake.calls.map((call) => call.path)).toEqual(['/.well-known/agent.json']);
  });

  it('0.3: the agent/getAuthenticatedExtendedCard method', async () => {
    const { fake, upstream } = await setup(
      { rpc: { 'agent/getAuthenticatedExtendedCard': (call, res) => rpcResult(call, res, { ...defaultCard('http://x'), name: 'ext-0.3' }) } },
      {},
      '0.3',
    );
    expect((await upstream.getExtendedAgentCard(ctx())).name).toBe('ext-0.3');
    expect(fake.rpcCalls().map((call) => call.method)).toEqual(['agent/getAuthenticatedExtendedCard']);
  });

  it('candidate URLs: under {url}/, at {url}/../, next to the well-known card; no repeats', () => {
    expect(extendedCardUrls('http://h/a2a/api', 'http://h')).toEqual([
      'http://h/a2a/api/agent/authenticatedExtendedCard',
      'http://h/a2a/agent/authenticatedExtendedCard',
      'http://h/agent/authenticatedExtendedCard',
    ]);
    expect(extendedCardUrls('http://h/', 'http://h')).toEqual(['http://h/agent/authenticatedExtendedCard']);
  });
});

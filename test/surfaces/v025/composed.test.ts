/**
 * The facade composed by createGatewayApp over a recording stub port (test/surfaces/support.ts), for
 * what no real upstream here produces: device commands in metadata, push configs, the extended card,
 * direct Message replies, and exactly what the port is called with.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../src/gateway-app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import type { AgentPort } from '../../../src/core/agent-port.js';
import type { CardSource } from '../../../src/core/card-source.js';
import { createTaskRegistry } from '../../../src/core/task-registry/index.js';
import type { TaskRegistry } from '../../../src/core/task-registry/types.js';
import { createLogger } from '../../../src/log.js';
import { principalOf } from '../../../src/surfaces/shared/principal.js';
import type { AgentCard, StreamResponse } from '../../../src/model/index.js';
import { fixedCards, fromArray, StubPort, upstreamCard } from '../support.js';
import { API_KEY, userMessage } from '../../support/facade.js';

const FLASH = { name: 'flash', params: [{ name: 'times', value: '3', normValue: '3' }], commandRequestId: 'cmd-1' };
const VOLUME = { name: 'volume', params: [{ name: 'level', value: 'up', normValue: 'up' }], commandRequestId: 'cmd-2' };

/** An upstream whose card says it cannot stream: message/send uses its blocking answer. */
const NOT_STREAMING = fixedCards(upstreamCard({ capabilities: { streaming: false, pushNotifications: true, extendedAgentCard: true } }));
/** iac-code, known by its card's extension: it ends every turn INPUT_REQUIRED, its answers too. */
const IAC_CODE = fixedCards(
  upstreamCard({ capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: 'urn:iac-code:a2a:artifact-metadata:v1' }] } }),
);

const registries: TaskRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

function compose(overrides: Partial<AgentPort> = {}, config: Record<string, unknown> = {}, cards: CardSource = fixedCards()) {
  const port = new StubPort(overrides);
  const gatewayConfig = defaultConfig({ 'keepalive-ms': 0, ...config });
  const registry = createTaskRegistry(gatewayConfig);
  registries.push(registry);
  const app = createGatewayApp({ config: gatewayConfig, port, cards, registry, logger: createLogger('silent') });
  async function call(method: string, params: unknown, options: { path?: string; headers?: Record<string, string> } = {}) {
    const response = await app.request(`http://gw.test${options.path ?? '/'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'c-1', method, params }),
    });
    const text = await response.text();
    const frames = text.startsWith('data:')
      ? text
          .split('\n\n')
          .filter((block) => block.startsWith('data: '))
          .map((block) => JSON.parse(block.slice(6)))
      : undefined;
    return { status: response.status, text, body: frames ? undefined : JSON.parse(text), events: frames?.map((frame) => frame.result) };
  }
  return { app, port, call };
}

const working = (text: string, metadata?: Record<string, unknown>): StreamResponse => ({
  statusUpdate: {
    taskId: 'task-1',
    contextId: 'ctx-1',
    status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text }] } },
    ...(metadata ? { metadata } : {}),
  },
});

describe('device commands reach the last artifact', () => {
  it('stream: commands from status and artifact metadata, once, on the lastChunk artifact-update', async () => {
    const { call } = compose(
      {
        sendStreamingMessage: () =>
          fromArray<StreamResponse>([
            { task: { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_SUBMITTED' } } },
            working('Turning on ', { commands: [FLASH] }),
            {
              artifactUpdate: {
                taskId: 'task-1',
                contextId: 'ctx-1',
                artifact: { artifactId: 'A', parts: [{ text: 'log' }], metadata: { bailian: { commands: [VOLUME, FLASH] } } },
              },
            },
            working('the light.'),
            { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } },
          ]),
      },
      {},
      IAC_CODE,
    );
    const { events } = await call('message/stream', { message: userMessage({ text: 'light on' }) }, { path: '/stream' });
    const artifacts = (events ?? []).filter((event) => event.kind === 'artifact-update');
    const carrying = artifacts.filter((event) => event.artifact.metadata?.commands);
    expect(carrying).toHaveLength(1);
    expect(carrying[0]).toBe(artifacts.at(-1));
    expect(carrying[0]).toMatchObject({ lastChunk: true, artifact: { metadata: { commands: [FLASH, VOLUME] } } });
    expect(events?.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('send (an upstream that does not stream): the task replayed as one reply artifact carrying the commands', async () => {
    const { call } = compose(
      {
        sendMessage: async () => ({
          task: {
            id: 'task-1',
            contextId: 'ctx-1',
            status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Done.' }] } },
            artifacts: [{ artifactId: 'A', parts: [{ text: 'log' }] }],
            metadata: { bailian: { commands: [FLASH] } },
          },
        }),
      },
      {},
      NOT_STREAMING,
    );
    const { body } = await call('message/send', { message: userMessage({ text: 'flash' }) });
    expect(body.result.artifacts).toEqual([
      { artifactId: expect.any(String), parts: [{ kind: 'text', text: 'log\nDone.' }], metadata: { commands: [FLASH] } },
    ]);
  });
});

describe('what the port is called with', () => {
  it('the 0.2.5 principal of the key and surface v025 with a key; the extensions header is passed on', async () => {
    const { port, call } = compose({}, { bailian: { 'api-key': API_KEY } });
    await call('tasks/get', { id: 'task-1' }, { headers: { 'X-API-KEY': API_KEY, 'X-A2A-Extensions': 'urn:a, urn:b' } });
    expect(port.last().ctx).toMatchObject({
      principal: principalOf('a2a-0.2.5', 'api-key', API_KEY),
      surface: 'v025',
      extensions: ['urn:a', 'urn:b'],
    });
  });

  it("the facade's anonymous principal without a key, and the 1.0 surface's auth does not apply to the facade", async () => {
    const { app, port, call } = compose({}, { auth: { token: 'one-dot-oh' } });
    const answer = await call('tasks/get', { id: 'task-1', historyLength: 2 });
    expect(answer.body.result).toMatchObject({ kind: 'task', id: 'task-1' });
    // historyLength is applied by the facade to the task's conversation, so the port is asked for all of it.
    expect(port.last()).toMatchObject({ method: 'getTask', request: { id: 'task-1' }, ctx: { principal: 'a2a-0.2.5:anonymous' } });
    expect((await call('tasks/get', { id: 'task-1' }, { path: '/stream' })).body.result.id).toBe('task-1');
    expect((await app.request('http://gw.test/.well-known/agent.json')).status).toBe(200);
    const v1 = await call('GetTask', { id: 'task-1' }, { headers: { 'A2A-Version': '1.0' } });
    expect(v1.status).toBe(401);
    expect((await app.request('http://gw.test/.well-known/agent-card.json')).status).toBe(401);
  });

  it('a direct Message reply is a completed one-artifact task for bailian', async () => {
    const { call } = compose(
      {
        sendMessage: async () => ({ message: { messageId: 'm', role: 'ROLE_AGENT', contextId: 'ctx-9', parts: [{ text: 'Hi!' }] } }),
      },
      {},
      NOT_STREAMING,
    );
    const { body } = await call('message/send', { message: userMessage() });
    expect(body.result).toMatchObject({
      kind: 'task',
      contextId: 'ctx-9',
      status: { state: 'completed' },
      artifacts: [{ parts: [{ kind: 'text', text: 'Hi!' }] }],
    });
  });
});

describe('the state an INPUT_REQUIRED is shown in under bailian: what the agent is, read from its card for every turn', () => {
  const IAC_CODE_CARD = IAC_CODE.current()!.card;
  let tasks = 0;
  /** An agent that asks its user which region, in its INPUT_REQUIRED status message. */
  const asking = {
    sendStreamingMessage: () => {
      const taskId = `asked-${++tasks}`;
      const ids = { taskId, contextId: `ctx-${taskId}` };
      const question = { messageId: `q-${taskId}`, role: 'ROLE_AGENT' as const, parts: [{ text: 'Which region?' }] };
      return fromArray<StreamResponse>([
        { task: { id: taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' } } },
        { statusUpdate: { ...ids, status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question } } },
      ]);
    },
  };
  const changingCards = (card: AgentCard) => {
    const source = { card, current: () => ({ card: source.card, fetchedAt: new Date('2026-03-01T10:00:00.000Z') }) };
    return Object.assign(source, { upstreamReachable: () => true, onChange: () => undefined });
  };
  const endState = async (call: ReturnType<typeof compose>['call']) => {
    const { events } = await call('message/stream', { message: userMessage({ text: 'create a VPC' }) }, { path: '/stream' });
    expect(events?.at(-1)).toMatchObject({ kind: 'status-update', final: true });
    return events?.at(-1).status.state;
  };

  it("another agent's question ends input-required; once a refresh shows the agent is iac-code, its INPUT_REQUIRED ends completed", async () => {
    const cards = changingCards(upstreamCard());
    const { call } = compose(asking, {}, cards);
    expect(await endState(call)).toBe('input-required');
    cards.card = IAC_CODE_CARD;
    expect(await endState(call)).toBe('completed');
    cards.card = upstreamCard();
    expect(await endState(call)).toBe('input-required');
  });

  it('while no card has been read (the agent was down at start), the agent is taken for iac-code: completed', async () => {
    const cards = changingCards(upstreamCard());
    const { call } = compose(asking, {}, Object.assign(cards, { current: () => undefined }));
    expect(await endState(call)).toBe('completed');
  });

  it("the operator's own INPUT_REQUIRED entry holds for another agent's question too", async () => {
    const mappings = { 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'completed' } };
    const { call } = compose(asking, { bailian: { mappings } });
    expect(await endState(call)).toBe('completed');
  });

  it('under the plain a2a-0.2.5 profile both end input-required, as before', async () => {
    for (const cards of [fixedCards(), IAC_CODE]) {
      const { call } = compose(asking, { bailian: { profile: 'a2a-0.2.5' } }, cards);
      expect(await endState(call)).toBe('input-required');
    }
  });
});

describe('push configs (push-notifications: true)', () => {
  const config = { 'push-notifications': true };

  it('set / get / list / delete translate ids and shapes both ways', async () => {
    const { port, call } = compose({}, config);
    const set = await call('tasks/pushNotificationConfig/set', {
      taskId: 'task-1',
      pushNotificationConfig: { id: 'hook-1', url: 'https://hooks.example.com/a', token: 't', authentication: { schemes: ['Bearer'] } },
    });
    expect(port.last().request).toEqual({
      taskId: 'task-1',
      id: 'hook-1',
      url: 'https://hooks.example.com/a',
      token: 't',
      authentication: { scheme: 'Bearer' },
    });
    expect(set.body.result).toEqual({
      taskId: 'task-1',
      pushNotificationConfig: { id: 'hook-1', url: 'https://hooks.example.com/a', token: 't', authentication: { schemes: ['Bearer'] } },
    });
    const get = await call('tasks/pushNotificationConfig/get', { id: 'task-1', pushNotificationConfigId: 'hook-1' });
    expect(port.last().request).toEqual({ taskId: 'task-1', id: 'hook-1' });
    expect(get.body.result.pushNotificationConfig.id).toBe('hook-1');
    const list = await call('tasks/pushNotificationConfig/list', { id: 'task-1' });
    expect(Array.isArray(list.body.result)).toBe(true);
    expect(list.body.result[0].taskId).toBe('task-1');
    const deleted = await call('tasks/pushNotificationConfig/delete', { id: 'task-1', pushNotificationConfigId: 'hook-1' });
    expect(port.last()).toMatchObject({ method: 'deleteTaskPushNotificationConfig', request: { taskId: 'task-1', id: 'hook-1' } });
    expect(deleted.body).toEqual({ jsonrpc: '2.0', id: 'c-1', result: null });
  });
});

describe('cards', () => {
  it('agent/getAuthenticatedExtendedCard: the upstream extended card as a 0.2.5 facade card', async () => {
    const { call } = compose();
    const { body } = await call('agent/getAuthenticatedExtendedCard', undefined);
    expect(body.result).toMatchObject({ protocolVersion: '0.2.5', url: 'http://gw.test', skills: [{ id: 'extra', tags: ['t'] }] });
    expect(JSON.stringify(body.result)).not.toContain('10.0.0.5');
  });

  it('operator overrides win; upstream schemes, URLs and signatures never show; tagless skills get one', async () => {
    const cards = fixedCards(upstreamCard({ skills: [{ id: 's1', name: 'S', description: '', tags: [] }] }));
    const { app } = compose({}, { bailian: { card: { name: 'Gateway', version: '9.9.9' } } }, cards);
    const card: any = await (await app.request('http://gw.test/.well-known/agent.json')).json();
    expect(card).toMatchObject({ name: 'Gateway', version: '9.9.9', description: 'Upstream agent', url: 'http://gw.test', security: [] });
    expect(card.skills).toEqual([{ id: 's1', name: 'S', description: 'S', tags: ['general'] }]);
    expect(card.securitySchemes).toBeUndefined();
    expect(card.signatures).toBeUndefined();
    expect(JSON.stringify(card)).not.toContain('10.0.0.5');

    const skills = [{ id: 'weather', name: 'Weather', description: 'Forecasts', tags: ['weather'], examples: ['今天会下雨吗？'] }];
    const custom = compose({}, { bailian: { card: { skills } } });
    const customCard: any = await (await custom.app.request('http://gw.test/.well-known/agent.json')).json();
    expect(customCard.skills).toEqual(skills);
  });

  it('503 until the upstream card is known; nothing is served when the facade is disabled', async () => {
    const noCard = compose({}, {}, { current: () => undefined, upstreamReachable: () => false, onChange: () => undefined });
    expect((await noCard.app.request('http://gw.test/.well-known/agent.json')).status).toBe(503);
    const disabled = compose({}, { bailian: { enabled: false } });
    expect((await disabled.app.request('http://gw.test/.well-known/agent.json')).status).toBe(404);
    expect((await disabled.call('message/send', { message: userMessage() })).body.error.code).toBe(-32601);
  });
});

/**
 * A 1.0 caller whose answer was lost sends its message again as it was (the same messageId, the same words). Once
 * the turn it ran ended, iac-code must not run it a second time (a second deployment): SendMessage answers the task
 * as it stands, SendStreamingMessage that Task and its end, on the replica that ran it and, with `store: redis`, on
 * another. The same messageId with other words is refused as invalid params. The official a2a-js 1.x client.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';
import { asTask, collect, connect, rejectionOf, sendRequest, textPart, wireCode, type TransportName } from '../../support/sdk-v1-client.js';

beforeAll(requireRedis);

const setups = [
  { name: 'memory store', replicas: 1, config: () => ({}) },
  {
    name: 'two replicas sharing Redis (sent again to the other)',
    replicas: 2,
    config: () => ({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `a2a-bridge-test:${randomUUID()}:` }),
  },
];

describe.each(setups)('a 1.0 message sent again after its turn ended ($name)', ({ replicas, config }) => {
  let fake: FakeIacCode;
  let gateways: TestGateway[] = [];
  /** The turns iac-code was asked to run. */
  const turnsRun = () => fake.rpcRequests('SendStreamingMessage').length + fake.rpcRequests('SendMessage').length;
  const client = async (at: number, transport: TransportName = 'JSONRPC'): Promise<Client> => (await connect(gateways.at(at)!.url, transport)).client;

  beforeAll(async () => {
    fake = await startFakeIacCode({ script: { before: ['Planning ', 'the VPC.'], after: ['Deployed.'], artifact: { filename: 'main.tf' } } });
    const shared = { upstream: { url: fake.url }, ...config() };
    for (let i = 0; i < replicas; i++) gateways.push(await startTestGateway(shared));
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    gateways = [];
    await fake?.close();
  });

  it('SendMessage and SendStreamingMessage of it answer the task as it stands, and iac-code runs it once', async () => {
    const request = sendRequest('Create a VPC', { contextId: randomUUID() });
    const first = asTask(await (await client(0)).sendMessage(request));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const before = turnsRun();
    for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
      const again = asTask(await (await client(-1, transport)).sendMessage(request));
      expect(again).toMatchObject({ id: first.id, contextId: first.contextId, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
      expect(again.artifacts.map((artifact) => artifact.artifactId)).toEqual(first.artifacts.map((artifact) => artifact.artifactId));
      const streamed = await collect((await client(-1, transport)).sendMessageStream(request));
      expect(streamed.map((payload) => payload.$case)).toEqual(['task']);
      expect(streamed[0]!.value).toMatchObject({ id: first.id, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
    }
    expect(turnsRun()).toBe(before);
    // A follow-up of its own runs, and sent again it does not.
    const followUp = sendRequest('Add a subnet', { taskId: first.id, contextId: first.contextId });
    await collect((await client(0)).sendMessageStream(followUp));
    expect(turnsRun()).toBe(before + 1);
    const followedAgain = asTask(await (await client(-1)).sendMessage(followUp));
    expect(followedAgain).toMatchObject({ id: first.id, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
    expect(turnsRun()).toBe(before + 1);
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'over %s, the same messageId with other words is refused as invalid params, and runs nothing',
    async (transport) => {
      const request = sendRequest('Create a VPC', { contextId: randomUUID() });
      await (await client(0)).sendMessage(request);
      const before = turnsRun();
      const other = { ...request, message: { ...request.message!, parts: [textPart('Delete the VPC')] } };
      for (const call of [(c: Client) => c.sendMessage(other), (c: Client) => c.sendMessageStream(other)]) {
        const refused = await rejectionOf(call(await client(-1, transport)));
        expect(refused.code).toBe(wireCode(transport, -32602));
        expect(refused.message).toMatch(/messageId .* already used for a different message/);
      }
      expect(turnsRun()).toBe(before);
    },
  );
});

/**
 * A Bailian call whose answer was lost is sent again as it was: the same messageId, the same words. Once the turn it
 * opened has ended, that message again must not run the turn a second time at iac-code (a second deployment): its
 * user reads the turn's reply as the first time, by message/send and by message/stream (ending with a final status),
 * on the replica that ran it and, with `store: redis`, on another. The same messageId with other words is a new
 * message, run as one (a client that reuses its ids is not refused every turn). Official a2a-js 0.2.5 client in
 * front, the fake iac-code behind.
 */
import { randomUUID } from 'node:crypto';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { collect, openStream, results, sentText, startFacadeGateway, streamedText } from '../../support/facade.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

const setups = [
  { name: 'memory store', replicas: 1, config: () => ({}) },
  {
    name: 'two replicas sharing Redis (sent again to the other)',
    replicas: 2,
    config: () => ({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `a2a-bridge-test:${randomUUID()}:` }),
  },
];

const message = (text: string, messageId: string, contextId?: string) => ({
  message: {
    kind: 'message' as const,
    role: 'user' as const,
    messageId,
    parts: [{ kind: 'text' as const, text }],
    ...(contextId ? { contextId } : {}),
  },
});

describe.each(setups)('the same message sent again after its turn ended ($name)', ({ replicas, config }) => {
  let fake: FakeIacCode;
  let gateways: RunningGateway[] = [];
  let first: A2AClient;
  let again: A2AClient;
  /** The turns iac-code was asked to run. */
  const turnsRun = () => fake.rpcRequests('SendStreamingMessage').length + fake.rpcRequests('SendMessage').length;

  beforeAll(async () => {
    fake = await startFakeIacCode({ script: { before: ['Planning ', 'the VPC.'], after: ['Deployed.'], artifact: { filename: 'main.tf' } } });
    const shared = { upstream: { url: fake.url }, ...config() };
    for (let i = 0; i < replicas; i++) gateways.push(await startFacadeGateway(shared));
    first = new A2AClient(gateways[0]!.url);
    again = new A2AClient(gateways.at(-1)!.url);
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    gateways = [];
    await fake?.close();
  });

  /** What the user reads of `params` sent by `client` with each method, and the state it ended in. */
  const read = {
    'message/send': async (client: A2AClient, params: ReturnType<typeof message>) => {
      const answer: any = await client.sendMessage(params);
      expect(answer.error).toBeUndefined();
      return { text: sentText(answer.result), state: answer.result.status.state, contextId: answer.result.contextId, taskId: answer.result.id };
    },
    'message/stream': async (client: A2AClient, params: ReturnType<typeof message>) => {
      const events = await collect(client.sendMessageStream(params));
      const last = events.at(-1);
      expect(last).toMatchObject({ kind: 'status-update', final: true });
      return { text: streamedText(events), state: last.status.state, contextId: last.contextId, taskId: last.taskId };
    },
  };

  for (const [firstHow, sendFirst] of Object.entries(read)) {
    it(`a turn sent by ${firstHow}: sent again, both ways, it is read again, not run again`, async () => {
      const params = message('Create a VPC', randomUUID(), randomUUID());
      const before = turnsRun();
      const shown = await sendFirst(first, params);
      expect(shown.text).toContain('Planning the VPC.');
      expect(turnsRun()).toBe(before + 1);
      for (const readAgain of Object.values(read)) {
        const repeated = await readAgain(again, params);
        expect(repeated).toEqual(shown);
      }
      expect(turnsRun()).toBe(before + 1);
      // A new message of the conversation is a turn of its own.
      const next = await read['message/send'](again, message('Add a subnet', randomUUID(), shown.contextId));
      expect(next.text).toContain('Planning the VPC.');
      expect(turnsRun()).toBe(before + 2);
    });
  }

  it('the same messageId with other words is a new message, both ways: it runs, and reads its own answer', async () => {
    const params = message('Create a VPC', randomUUID(), randomUUID());
    await read['message/send'](first, params);
    const before = turnsRun();
    const other = message('Delete the VPC', params.message.messageId, params.message.contextId);
    const sent: any = await again.sendMessage(other);
    expect(sent.error).toBeUndefined();
    expect(turnsRun()).toBe(before + 1);
    const streamed = message('Add a subnet', params.message.messageId, params.message.contextId);
    const frames = await (await openStream(`${gateways.at(-1)!.url}/stream`, 'message/stream', streamed)).rest();
    expect(frames.map((frame) => frame.json.error).filter(Boolean)).toEqual([]);
    expect(results(frames).at(-1)).toMatchObject({ final: true });
    expect(turnsRun()).toBe(before + 2);
  });
});

/**
 * The relay's rewritten answers (passthrough-answers.test.ts) once callers hold credentials and each has
 * one turn in flight: the task of a JSON result sent on as one SSE frame is recorded under its caller,
 * and every rewritten answer gives the turn's slot back, so the next turn goes through.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { collect, rpc, sdkParams, startRelayingFacadeGateway } from '../../support/facade.js';
import type { FakeV025 } from '../../support/fake-v025.js';
import { answeredHttp, expectClean, MESSAGE, NOT_JSON_RPC, startRelayScenarioAgent, TOO_LARGE } from '../../support/relay-scenarios.js';
import { admittedWithin } from '../../support/turn-limits.js';

let agent: FakeV025;

beforeAll(async () => {
  agent = await startRelayScenarioAgent();
});
afterAll(async () => {
  await agent?.close();
});

describe('with credentials set and one turn per client', () => {
  let capped: RunningGateway;
  let cappedClient: A2AClient;
  beforeAll(async () => {
    capped = await startRelayingFacadeGateway({
      upstream: { url: agent.url },
      auth: { token: 'one-point-oh-token' },
      limits: { 'turns-in-flight-per-client': 1 },
    });
    cappedClient = new A2AClient(capped.url);
  });
  afterAll(async () => {
    await capped?.close();
  });

  it('the task of a JSON result relayed as one frame is recorded: the caller can get it, a task never relayed is not found', async () => {
    const events = await collect(cappedClient.sendMessageStream(sdkParams('task-result')));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const got: any = await cappedClient.getTask({ id: events[0].id });
    expect(got.result).toMatchObject({ kind: 'task', id: events[0].id });
    expect(((await cappedClient.getTask({ id: 'relayed-never-sent' })) as any).error?.code).toBe(-32001);
  });

  const sendPasses = async (): Promise<any> => {
    const answer = await rpc(capped.url, 'message/send', sdkParams('normal'));
    if (answer.body?.error?.code === GatewayErrorCode.TooManyTurnsInFlight) throw new Error('refused: a slot is still held');
    return answer.body;
  };

  it.each([
    ['message/send', 'html-502', answeredHttp(502)],
    ['message/send', 'not-json-rpc', NOT_JSON_RPC],
    ['message/stream', 'empty-500', answeredHttp(500)],
    ['message/stream', 'big', TOO_LARGE],
    ['message/stream', 'result', undefined],
  ])('%s answered with %s: the rewritten answer, then the slot is free again', async (method, scenario, error) => {
    const answer = await rpc(method === 'message/send' ? capped.url : `${capped.url}/stream`, method, sdkParams(scenario), { id: 'capped-1' });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(method === 'message/send' ? /^application\/json/ : /^text\/event-stream/);
    expect(answer.body).toStrictEqual(error ? { jsonrpc: '2.0', id: 'capped-1', error } : { jsonrpc: '2.0', id: 'capped-1', result: MESSAGE });
    expectClean(answer.text);
    expect(await admittedWithin(sendPasses, (refusal) => refusal instanceof Error && refusal.message.startsWith('refused'))).toMatchObject({
      result: MESSAGE,
    });
  });
});

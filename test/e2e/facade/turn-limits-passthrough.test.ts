/**
 * The facade in front of a 0.2.5 agent relays its calls past the core, and caps their turns all the
 * same (limits.*): the official 0.2.5 client's message past the cap gets the 0.2.5 error before the
 * agent is asked (a tasks/resubscribe's too: it holds a slot as a stream does), tasks/get is not a turn, and a relayed turn gives its slot back once its answer is
 * out, its agent cuts it off, or its caller hangs up. The agent here holds each message until the test
 * answers it.
 */
import type { ServerResponse } from 'node:http';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { openStream, rpc, sdkParams, startRelayingFacadeGateway } from '../../support/facade.js';
import { frame, rpcResult, sse, startFakeV025, type FakeCall, type FakeV025 } from '../../support/fake-v025.js';
import { admittedWithin, refusalText } from '../../support/turn-limits.js';

/** A message the agent holds: answer it (`finish`) or cut it off (`cut`). */
interface Held {
  call: FakeCall;
  finish(): void;
  cut(): void;
}

const task = (call: FakeCall, state: string) => ({ kind: 'task', id: `task-${String(call.id)}`, contextId: 'ctx', status: { state } });

let agent: FakeV025;
let gateway: RunningGateway;
let client: A2AClient;
const held: Held[] = [];

function hold(call: FakeCall, res: ServerResponse, streamed: boolean): void {
  if (streamed) sse(res, [frame(call, task(call, 'submitted'))], { keepOpen: true });
  held.push({
    call,
    finish: () =>
      streamed
        ? res.end(frame(call, { kind: 'status-update', taskId: task(call, '').id, contextId: 'ctx', status: { state: 'completed' }, final: true }))
        : rpcResult(call, res, task(call, 'completed')),
    cut: () => res.destroy(),
  });
}

beforeAll(async () => {
  agent = await startFakeV025({
    rpc: {
      'message/stream': (call, res) => hold(call, res, true),
      'message/send': (call, res) => hold(call, res, false),
      'tasks/get': (call, res) => rpcResult(call, res, task(call, 'working')),
    },
  });
  // A 1.0 credential makes the facade record what it relays: the recorded answer is the one held.
  gateway = await startRelayingFacadeGateway({
    upstream: { url: agent.url },
    auth: { token: 'one-point-oh-token' },
    limits: { 'turns-in-flight-per-client': 1 },
  });
  client = new A2AClient(gateway.url);
});
afterAll(async () => {
  for (const turn of held.splice(0)) turn.finish();
  await gateway?.close();
  await agent?.close();
});

const messages = (): number => agent.rpcCalls('message/send').length + agent.rpcCalls('message/stream').length;
/** The 0.2.5 client reports a refused message/stream with the refusal's own words (its one SSE frame). */
const refused = (error: unknown): boolean => error instanceof Error && error.message.includes(refusalText(1));

/** A relayed stream the agent holds, its first event read. */
async function holdStream(): Promise<AsyncGenerator<unknown>> {
  const stream = client.sendMessageStream(sdkParams('hold'));
  await stream.next();
  return stream;
}

describe('relayed turns under the cap', () => {
  it('past the cap: the 0.2.5 error before the agent is asked, tasks/resubscribe too; tasks/get is not a turn', async () => {
    const stream = await holdStream();
    const sent = messages();
    const answer: any = await client.sendMessage(sdkParams('one too many'));
    expect(answer.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(1) });
    const streamed = await rpc(`${gateway.url}/stream`, 'message/stream', sdkParams('one too many, streamed'));
    expect(streamed.body.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(1) });
    expect(messages()).toBe(sent);
    // A resubscription holds a slot as a stream does (it holds a connection to the agent as long): refused as well.
    const resubscribed = await rpc(`${gateway.url}/stream`, 'tasks/resubscribe', { id: task(held[0]!.call, '').id });
    expect(resubscribed.body.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(1) });
    expect(agent.rpcCalls('tasks/resubscribe')).toHaveLength(0);
    // Relayed to the agent, the held turn's task being the caller's own (the facade recorded it).
    const got: any = await client.getTask({ id: task(held[0]!.call, '').id });
    expect(got.result).toMatchObject({ kind: 'task', status: { state: 'working' } });
    held.shift()!.finish();
    for await (const event of stream) expect(event).toBeDefined();
  });

  it.each<[string, () => Promise<void>]>([
    [
      'its blocking answer is out',
      async () => {
        const answer = client.sendMessage(sdkParams('blocking'));
        await until(() => held.length === 1);
        held.shift()!.finish();
        expect(((await answer) as any).result).toMatchObject({ status: { state: 'completed' } });
      },
    ],
    [
      'its agent cuts it off',
      async () => {
        const stream = await holdStream();
        held.shift()!.cut();
        await (async () => {
          for await (const event of stream) expect(event).toBeDefined();
        })().catch(() => undefined);
      },
    ],
    [
      'its caller hangs up',
      async () => {
        const leaving = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('about to leave'));
        await leaving.next();
        const turn = held.shift()!;
        leaving.abort();
        expect(await turn.call.closedByClient).toBe(true);
      },
    ],
  ])('a relayed turn gives its slot back once %s', async (_how, end) => {
    await end();
    const next = await admittedWithin(holdStream, refused);
    expect((await rpc(`${gateway.url}/`, 'message/send', sdkParams('past the cap'))).body.error?.code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
    held.shift()!.finish();
    for await (const event of next) expect(event).toBeDefined();
  });
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The 0.2.5 facade's turns under the cap on turns in flight (limits.*), in front of an agent that holds
 * each turn until the test ends it. Every Bailian user behind one facade key is one client: the official
 * 0.2.5 client (no key: the facade's anonymous caller) gets a 0.2.5 error a user can read past the cap,
 * before the agent is asked (a tasks/resubscribe too), while a 1.0 client's turn goes through; tasks/get is not a turn; a turn
 * that ends or whose caller leaves gives its slot back. A named facade key counts with the 1.0
 * credentials of the same name.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { openStream, rpc, sdkParams, startFacadeGateway } from '../../support/facade.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { scrape, value } from '../../support/prometheus.js';
import { connect, rejectionOf, sendRequest } from '../../support/sdk-v1-client.js';
import { CAP, admittedWithin, cappedGatewayConfig, refusalText, tokenOf } from '../../support/turn-limits.js';

let agent: HeldTurnsAgent;

beforeAll(async () => {
  agent = await startHeldTurnsAgent();
});
afterAll(() => agent?.close());

/** A facade stream the agent holds, its first event read. */
async function holdStream(client: A2AClient): Promise<AsyncGenerator<unknown>> {
  const stream = client.sendMessageStream(sdkParams('hold'));
  await stream.next();
  return stream;
}

/** The 0.2.5 client reports a refused message/stream with the refusal's own words (its one SSE frame). */
const refused = (error: unknown): boolean => error instanceof Error && error.message.includes(refusalText(CAP));

/** What the official 0.2.5 client throws for a message/stream, or undefined when its first event comes. */
async function streamFailure(client: A2AClient, text: string): Promise<Error | undefined> {
  const stream = client.sendMessageStream(sdkParams(text));
  try {
    await stream.next();
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    await stream.return(undefined);
  }
}

async function endAll(streams: Array<AsyncGenerator<unknown>>): Promise<void> {
  for (const turn of agent.held()) turn.complete();
  for (const stream of streams) await stream.return(undefined);
}

describe('the official 0.2.5 client, every facade caller one client', () => {
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    gateway = await startFacadeGateway(cappedGatewayConfig(agent.url));
    client = new A2AClient(gateway.url);
  });
  afterAll(() => gateway?.close());

  it('past the cap: a 0.2.5 error with a readable message, before the agent; a 1.0 client goes through meanwhile', async () => {
    const streams = [await holdStream(client), await holdStream(client)];
    try {
      const sent = agent.calls('SendMessage') + agent.calls('SendStreamingMessage');
      const answer: any = await client.sendMessage(sdkParams('one too many'));
      expect(answer.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(CAP) });
      // message/stream (where Bailian posts) is refused in the stream it asked for: one error frame, the same words.
      const streamed = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('one too many, streamed'));
      expect(streamed.response.status).toBe(200);
      expect(streamed.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(streamed.response.headers.get('retry-after')).toBe('5');
      const frames = (await streamed.rest()).map((frame) => frame.json.error);
      expect(frames).toEqual([{ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(CAP) }]);
      expect((await streamFailure(client, 'one too many, from the SDK'))?.message).toContain(refusalText(CAP));
      expect(agent.calls('SendMessage') + agent.calls('SendStreamingMessage')).toBe(sent);

      const { client: v1 } = await connect(gateway.url, 'JSONRPC', { token: tokenOf('alpha') });
      const theirs = v1.sendMessage(sendRequest('a 1.0 client'));
      (await agent.waitForHeld(CAP + 1)).at(-1)!.complete();
      await theirs;
      const samples = await scrape(gateway.url);
      expect(value(samples, 'a2a_bridge_turns_refused_total', { surface: 'v025', client: '' })).toBe(3);
    } finally {
      await endAll(streams);
    }
  });

  it('past the cap: tasks/resubscribe is refused as message/stream is (it holds a slot as a stream does), before the agent', async () => {
    const turn = client.sendMessageStream(sdkParams('hold, then follow'));
    const first: any = (await turn.next()).value;
    const streams = [turn, await holdStream(client)];
    try {
      const subscribed = agent.calls('SubscribeToTask');
      const resubscribed = await openStream(`${gateway.url}/stream`, 'tasks/resubscribe', { id: first.result?.id ?? first.id });
      expect(resubscribed.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(resubscribed.response.headers.get('retry-after')).toBe('5');
      expect((await resubscribed.rest()).map((frame) => frame.json.error)).toEqual([
        { code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(CAP) },
      ]);
      expect(agent.calls('SubscribeToTask')).toBe(subscribed);
    } finally {
      await endAll(streams);
    }
  });

  it("past the cap: the refusal in the user's language (Chinese, Japanese), its code and Retry-After kept", async () => {
    const streams = [await holdStream(client), await holdStream(client)];
    try {
      const streamed = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('你好'));
      expect(streamed.response.headers.get('retry-after')).toBe('5');
      expect((await streamed.rest()).map((frame) => frame.json.error)).toEqual([
        { code: GatewayErrorCode.TooManyTurnsInFlight, message: '智能体正忙：同时进行的请求过多，请稍后再试。' },
      ]);
      const sent = await rpc(`${gateway.url}/`, 'message/send', sdkParams('こんにちは、VPCを作成してください'));
      expect(sent.body.error).toEqual({
        code: GatewayErrorCode.TooManyTurnsInFlight,
        message: 'エージェントは混み合っています：同時に処理中のリクエストが多すぎます。しばらくしてからもう一度お試しください。',
      });
    } finally {
      await endAll(streams);
    }
  });

  it('tasks/get is not a turn; a turn that ends, and one whose caller hangs up, each give their slot back, once', async () => {
    const streams = [await holdStream(client)];
    // The 0.2.5 client keeps a stream's connection when it is left (return() only lets go of the reader): hang up as Bailian would.
    const leaving = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('about to leave'));
    try {
      expect(await leaving.next()).toBeDefined();
      const [first, second] = await agent.waitForHeld(CAP);
      const got: any = await client.getTask({ id: first!.taskId });
      expect(got.result).toMatchObject({ kind: 'task', id: first!.taskId });

      first!.complete();
      for await (const event of streams.shift()!) expect(event).toBeDefined();
      streams.push(await admittedWithin(() => holdStream(client), refused));
      expect(((await client.sendMessage(sdkParams('past the cap'))) as any).error?.code).toBe(GatewayErrorCode.TooManyTurnsInFlight);

      leaving.abort();
      expect(await second!.closed).toBe('client-closed');
      streams.push(await admittedWithin(() => holdStream(client), refused));
      expect(((await client.sendMessage(sdkParams('past the cap'))) as any).error?.code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
    } finally {
      leaving.abort();
      await endAll(streams);
    }
  });
});

describe('a named facade key', () => {
  let gateway: RunningGateway;
  const FACADE_KEY = 'bailian-alpha-key-0123456789';
  beforeAll(async () => {
    gateway = await startFacadeGateway(cappedGatewayConfig(agent.url, { bailian: { 'api-keys': [{ name: 'alpha', key: FACADE_KEY }] } }));
  });
  afterAll(() => gateway?.close());

  it('counts with the 1.0 credentials of its name: one client, whatever the surface', async () => {
    const { client } = await connect(gateway.url, 'JSONRPC', { token: tokenOf('alpha') });
    const held: Array<Promise<unknown>> = [client.sendMessage(sendRequest('a 1.0 turn of alpha')).catch(() => undefined)];
    try {
      const headers = { 'x-api-key': FACADE_KEY };
      held.push(rpc(`${gateway.url}/`, 'message/send', sdkParams('a facade turn of alpha'), { headers }));
      await agent.waitForHeld(CAP);
      const third = await rpc(`${gateway.url}/`, 'message/send', sdkParams('third of alpha'), { headers });
      expect(third.body.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(CAP) });
      expect((await rejectionOf(client.sendMessage(sendRequest('third of alpha, over 1.0')))).code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
    } finally {
      for (const turn of agent.held()) turn.complete();
      await Promise.all(held);
    }
  });
});

/**
 * What an operator reads of the facade's relay (`bailian.profile: a2a-0.2.5` in front of a 0.2.5 agent: calls relayed
 * as they are, src/surfaces/v025/relay/passthrough.ts) is what they read of a translated call: a failure the relay answers
 * with its own error envelope is noted on the request line (errorCode, and cause/causeCode when it is no fault of the
 * caller's, at warn) and counted by its code; a stream the relay cuts (the agent silent past
 * `upstream.stream-idle-timeout-ms`) has its `stream ended` line; a caller who hangs up on a relayed message/send is
 * `ended: caller_left`; and the relayed call to the agent is counted and timed as every upstream call is
 * (a2a_bridge_upstream_requests_total, upstream_duration_seconds, and the gateway's share in gateway_added_seconds).
 * Before, the relay's -32603 was an info line counted `ok`, its idle cut logged nothing, a hang-up read as status 200,
 * and relayed calls never reached the upstream metrics. The agent is a real a2a-js 0.2.5 server, the caller the
 * a2a-js 0.2.5 client (plain fetch where the test must hang up).
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value, type Sample } from '../support/prometheus.js';
import { sdkParams, userMessage } from '../support/facade.js';
import { startSdkV025Agent, type RunningSdkV025Agent } from '../support/sdk-v025-agent.js';
import { waitUntil } from '../support/wait-until.js';

const RELAYED = { profile: 'a2a-0.2.5' };
const WARN = 40;
const INFO = 30;

/** What `calls` added to the samples of the gateway at `url`: a reader of the difference by name and labels. */
async function added(url: string, calls: () => Promise<unknown>): Promise<(name: string, labels?: Record<string, string>) => number> {
  const before: Sample[] = await scrape(url);
  await calls();
  const after: Sample[] = await scrape(url);
  return (name, labels = {}) => value(after, name, labels) - value(before, name, labels);
}

/** The request lines of `method` written after the first `skip`, once there is one. */
async function requestLines(gateway: TestGateway, method: string, skip: number) {
  const of = () =>
    gateway
      .requestLog()
      .slice(skip)
      .filter((line) => line.method === method);
  await waitUntil(async () => of().length > 0);
  return of();
}

describe('the relay in front of a 0.2.5 agent that answers', () => {
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  let client: A2AClient;
  const IDLE_MS = 300;

  beforeAll(async () => {
    // A `slow:` turn's chunks come a second apart: past the relay's bound on the agent's silence.
    agent = await startSdkV025Agent({ slowChunkDelayMs: 1_000 });
    gateway = await startTestGateway({ bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url, 'stream-idle-timeout-ms': IDLE_MS } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('message/send and message/stream: counted and timed as upstream calls, the gateway share of the blocking one too', async () => {
    const adds = await added(gateway.url, async () => {
      const sent = await client.sendMessage(sdkParams('hello'));
      expect(sent).toHaveProperty('result');
      for await (const _event of client.sendMessageStream(sdkParams('hello again'))) void _event;
    });
    expect(adds('a2a_bridge_upstream_requests_total', { method: 'message/send', outcome: 'ok' })).toBe(1);
    expect(adds('a2a_bridge_upstream_requests_total', { method: 'message/stream', outcome: 'ok' })).toBe(1);
    expect(adds('a2a_bridge_upstream_duration_seconds_count', { method: 'message/send' })).toBe(1);
    expect(adds('a2a_bridge_upstream_duration_seconds_count', { method: 'message/stream' })).toBe(1);
    expect(adds('a2a_bridge_request_duration_seconds_count', { surface: 'v025', method: 'message/send' })).toBe(1);
    expect(adds('a2a_bridge_gateway_added_seconds_count', { surface: 'v025' })).toBe(1);
  });

  it('a stream the relay cuts when the agent goes quiet: a `stream ended` line at warn saying why', async () => {
    const logged = gateway.log().length;
    const events: unknown[] = [];
    const failure = await (async () => {
      for await (const event of client.sendMessageStream(sdkParams('slow: take your time'))) events.push(event);
    })().catch((error: unknown) => error as Error);
    // The caller read the agent's first events, then the relay's error frame.
    expect(events.length).toBeGreaterThan(0);
    expect(String(failure)).toContain(`nothing from the agent for ${IDLE_MS} ms`);
    const ended = () =>
      gateway
        .log()
        .slice(logged)
        .filter((line) => line.msg === 'stream ended');
    await waitUntil(async () => ended().length > 0);
    expect(ended()).toEqual([
      expect.objectContaining({
        level: WARN,
        surface: 'v025',
        method: 'message/stream',
        ended: 'timeout',
        errorCode: -32603,
        cause: expect.stringContaining(`nothing from the agent for ${IDLE_MS} ms`),
      }),
    ]);
  });

  it('a caller who hangs up on a relayed message/send: status 499, ended caller_left at info, counted caller_left', async () => {
    const skip = gateway.requestLog().length;
    const sends = () => agent.received.filter((request) => request.rpcMethod === 'message/send').length;
    const before = sends();
    let lines: Awaited<ReturnType<typeof requestLines>> = [];
    const adds = await added(gateway.url, async () => {
      const caller = new AbortController();
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 'hang-up',
        method: 'message/send',
        params: { message: userMessage({ text: 'slow: hold on' }) },
      });
      const answer = fetch(`${gateway.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: caller.signal });
      await waitUntil(async () => sends() > before);
      caller.abort();
      await answer.catch(() => undefined);
      lines = await requestLines(gateway, 'message/send', skip);
    });
    expect(lines).toEqual([expect.objectContaining({ status: 499, ended: 'caller_left', level: INFO })]);
    expect(lines[0]).not.toHaveProperty('errorCode');
    expect(adds('a2a_bridge_requests_total', { surface: 'v025', method: 'message/send', outcome: 'caller_left' })).toBe(1);
    expect(adds('a2a_bridge_requests_total', { surface: 'v025', method: 'message/send', outcome: 'ok' })).toBe(0);
  });
});

describe('the relay in front of a 0.2.5 agent that went down', () => {
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  let client: A2AClient;

  beforeAll(async () => {
    agent = await startSdkV025Agent();
    gateway = await startTestGateway({ bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url } });
    // The client reads the card while the agent is up, as a caller that was already talking to it.
    client = new A2AClient(gateway.url);
    await client.getAgentCard();
    await agent.close();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(['message/send', 'message/stream'] as const)(
    '%s: -32603 for the caller; the request line at warn with errorCode, cause and causeCode; counted -32603 and an upstream error',
    async (method) => {
      const skip = gateway.requestLog().length;
      let failure: unknown;
      const adds = await added(gateway.url, async () => {
        if (method === 'message/send') {
          const answer = await client.sendMessage(sdkParams('anyone there?'));
          failure = 'error' in answer ? answer.error : undefined;
        } else {
          failure = await (async () => {
            for await (const _event of client.sendMessageStream(sdkParams('anyone there?'))) void _event;
          })().catch((error: unknown) => String(error));
        }
      });
      // What the caller reads is unchanged: the gateway's words, nothing of the agent's address.
      expect(JSON.stringify(failure)).toContain('Upstream agent is unavailable');
      expect(JSON.stringify(failure)).not.toContain('127.0.0.1');
      const lines = await requestLines(gateway, method, skip);
      expect(lines).toEqual([expect.objectContaining({ level: WARN, errorCode: -32603, cause: expect.any(String), causeCode: 'ECONNREFUSED' })]);
      expect(adds('a2a_bridge_requests_total', { surface: 'v025', method, outcome: 'error', error_code: '-32603' })).toBe(1);
      expect(adds('a2a_bridge_requests_total', { surface: 'v025', method, outcome: 'ok' })).toBe(0);
      expect(adds('a2a_bridge_upstream_requests_total', { method, outcome: 'error' })).toBe(1);
    },
  );
});

/**
 * An agent that froze mid-stream with its connection open (no event, no comment, no gRPC message) no
 * longer holds its caller's stream forever: past `upstream.stream-idle-timeout-ms` the call ends as timed
 * out, in each caller's protocol. A Bailian user reads what was said so far and the failure, in the turn's
 * language, in message/stream as in message/send; a 1.0 SDK client's stream fails with the gateway's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { fakeIacCodeBehindGateway, openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { startFakeGrpcAgent, type FakeGrpcAgent } from '../grpc/fake-grpc-agent.js';

const IDLE_MS = 400;
const WENT_IDLE = `${GATEWAY_FAILURES.upstreamTimedOut}: nothing from the agent for ${IDLE_MS} ms`;
/** The fake iac-code's turn stops after its fifth frame ("Hello world." said) and never ends. */
const FROZEN = '[fault:hang-mid-stream after=5]';

describe('a frozen iac-code behind the facade and the 1.0 surface', () => {
  const running = fakeIacCodeBehindGateway({ 'stream-idle-timeout-ms': IDLE_MS });
  /** The fake's whole turn, as a Bailian user reads it. */
  const TURN_TEXT = 'Hello world.\nmain.tf (text/plain, 14 bytes)\nDone.';

  it('the facade takes the quiet stream for a broken one: the rest is read from the task, in message/stream and message/send alike', async () => {
    const started = Date.now();
    const stream = await openStream(`${running.gateway.url}/stream`, 'message/stream', { message: userMessage({ text: `x ${FROZEN}` }) });
    const events = results(await stream.rest());
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(streamedText(events)).toBe(TURN_TEXT);
    // Far below the request bound (600 s by default) the turn would wait for otherwise; wide enough for a loaded host.
    expect(Date.now() - started).toBeLessThan(IDLE_MS + 10_000);
    const sent = await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: `x ${FROZEN}` }) });
    expect(sentText(sent.body.result)).toBe(TURN_TEXT);
  });

  it("when the task can be neither followed nor read: what was said, then the failure in the turn's language (never a stream left open)", async () => {
    running.fake.injectFault('http-500', { method: 'SubscribeToTask' });
    running.fake.injectFault('http-500', { times: 3, method: 'GetTask' });
    const stream = await openStream(`${running.gateway.url}/stream`, 'message/stream', { message: userMessage({ text: `创建专有网络 ${FROZEN}` }) });
    const events = results(await stream.rest());
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    expect(streamedText(events)).toBe('Hello world.\n上游智能体响应超时');
  });

  it('a 1.0 SDK client (JSON-RPC, HTTP+JSON): the stream fails with the timed-out error', async () => {
    for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
      const { client } = await connect(running.gateway.url, transport);
      await expect(collect(client.sendMessageStream(sendRequest(`x ${FROZEN}`))), transport).rejects.toThrow(WENT_IDLE);
    }
  });
});

describe('a frozen gRPC agent', () => {
  let agent: FakeGrpcAgent;
  let gateway: TestGateway;
  beforeAll(async () => {
    agent = await startFakeGrpcAgent();
    gateway = await startTestGateway({ upstream: { url: agent.url, 'stream-idle-timeout-ms': IDLE_MS } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('its call is cancelled once it sent nothing for the bound, and the caller told it timed out', async () => {
    agent.behave = { kind: 'stream-then-hang', events: 1 };
    const { client } = await connect(gateway.url, 'JSONRPC');
    await expect(collect(client.sendMessageStream(sendRequest('hi')))).rejects.toThrow(WENT_IDLE);
    expect(await agent.calls.at(-1)!.ended).toBe('cancelled');
  });
});

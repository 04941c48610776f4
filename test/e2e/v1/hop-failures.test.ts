/**
 * A call the hop could not finish (the agent gone, the gateway's bound on it passed) told as a proxy
 * tells it: HTTP+JSON 503 UNAVAILABLE / 504 DEADLINE_EXCEEDED, gRPC UNAVAILABLE / DEADLINE_EXCEEDED, so a
 * client or its load balancer knows to try again; JSON-RPC (1.0 and the 0.2.5 facade) keeps its answer,
 * HTTP 200 with -32603. Read through the official a2a-js 1.x client on each binding.
 */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { connect, rejectionOf, sendRequest, type RecordingClient } from '../../support/sdk-v1-client.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

const TIMEOUT_MS = 400;
const HANG = '[fault:hang-before-headers]';

interface Front {
  agent: FakeIacCode;
  gateway: TestGateway;
  jsonRpc: RecordingClient;
  rest: RecordingClient;
}

async function front(): Promise<Front> {
  const agent = await startFakeIacCode();
  const gateway = await startTestGateway({ upstream: { url: agent.url, 'request-timeout-ms': TIMEOUT_MS }, grpc: { port: 0 } });
  return { agent, gateway, jsonRpc: await connect(gateway.url, 'JSONRPC'), rest: await connect(gateway.url, 'HTTP+JSON') };
}

async function facadeSend(gateway: TestGateway, text: string): Promise<{ status: number; body: { error?: { code: number } } }> {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } },
    }),
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: number } } };
}

describe('an agent that is gone', () => {
  let gone: Front;
  beforeAll(async () => {
    gone = await front();
    await gone.agent.close();
  });
  afterAll(async () => {
    await gone?.gateway.close();
  });

  it('HTTP+JSON: 503 UNAVAILABLE; JSON-RPC: -32603 in an HTTP 200 answer; gRPC: UNAVAILABLE', async () => {
    expect(await rejectionOf(gone.rest.client.sendMessage(sendRequest('hi')))).toMatchObject({
      code: 503,
      message: expect.stringContaining(GATEWAY_FAILURES.upstreamUnavailable),
    });
    expect(await rejectionOf(gone.jsonRpc.client.sendMessage(sendRequest('hi')))).toMatchObject({
      code: -32603,
      message: expect.stringContaining(GATEWAY_FAILURES.upstreamUnavailable),
    });
    const grpc = await grpcTransport(gone.gateway);
    expect(await grpcFailureOf(grpc.sendMessage(sendRequest('hi'), wire()))).toMatchObject({
      status: status.UNAVAILABLE,
      message: expect.stringContaining(GATEWAY_FAILURES.upstreamUnavailable),
    });
    expect(await grpcFailureOf(grpc.getTask({ tenant: '', id: 'task-1', historyLength: undefined }, wire()))).toMatchObject({
      status: status.UNAVAILABLE,
    });
  });

  it('the raw HTTP+JSON body is google.rpc.Status with the same pair', async () => {
    const response = await fetch(`${gone.gateway.url}/tasks/task-1`, { headers: { 'a2a-version': '1.0' } });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: { code: 503, status: 'UNAVAILABLE', message: GATEWAY_FAILURES.upstreamUnavailable, details: [] },
    });
  });

  it("the facade still answers Bailian HTTP 200 with the turn's failure", async () => {
    const answer = await facadeSend(gone.gateway, 'hi');
    expect(answer.status).toBe(200);
  });
});

describe('an agent down since the gateway started, its protocol pinned (no detection)', () => {
  it('HTTP+JSON: 503 UNAVAILABLE, as when detected; an agent that resets the call mid-way: 500 (it may have begun the turn)', async () => {
    const agent = await startFakeIacCode();
    const url = agent.url;
    await agent.close();
    const gateway = await startTestGateway({ upstream: { url, protocol: '1.0' } });
    try {
      const response = await fetch(`${gateway.url}/tasks/task-1`, { headers: { 'a2a-version': '1.0' } });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
    } finally {
      await gateway.close();
    }
    const resetting = await front();
    try {
      const answer = await fetch(`${resetting.gateway.url}/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ message: { messageId: 'm-reset', role: 'ROLE_USER', parts: [{ text: 'hi [fault:kill-mid-stream]' }] } }),
      });
      expect(answer.status).toBe(500);
      expect(await answer.json()).toMatchObject({ error: { status: 'INTERNAL', message: GATEWAY_FAILURES.upstreamUnavailable } });
    } finally {
      await resetting.gateway.close();
      await resetting.agent.close();
    }
  });
});

describe("an agent that outlasts the gateway's bound", () => {
  let slow: Front;
  beforeAll(async () => {
    slow = await front();
  });
  afterAll(async () => {
    await slow?.gateway.close();
    await slow?.agent.close();
  });

  it('HTTP+JSON: 504 DEADLINE_EXCEEDED; JSON-RPC: -32603; gRPC: DEADLINE_EXCEEDED', async () => {
    expect(await rejectionOf(slow.rest.client.sendMessage(sendRequest(`${HANG} hi`)))).toMatchObject({
      code: 504,
      message: expect.stringContaining(GATEWAY_FAILURES.upstreamTimedOut),
    });
    expect(await rejectionOf(slow.jsonRpc.client.sendMessage(sendRequest(`${HANG} hi`)))).toMatchObject({
      code: -32603,
      message: expect.stringContaining(GATEWAY_FAILURES.upstreamTimedOut),
    });
    const grpc = await grpcTransport(slow.gateway);
    expect(await grpcFailureOf(grpc.sendMessage(sendRequest(`${HANG} hi`), wire()))).toMatchObject({
      status: status.DEADLINE_EXCEEDED,
      message: expect.stringContaining(GATEWAY_FAILURES.upstreamTimedOut),
    });
  });

  it('the facade still answers Bailian HTTP 200', async () => {
    expect((await facadeSend(slow.gateway, `${HANG} hi`)).status).toBe(200);
  });
});

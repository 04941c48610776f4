/**
 * A real a2a-js 1.x server refuses a body over express's default 100 kB limit with HTTP 413. Behind the
 * gateway that is the caller's request being too large for the agent, not the agent misbehaving: every
 * binding answers its client error for InvalidParams (JSON-RPC -32602, HTTP+JSON 400 INVALID_ARGUMENT,
 * gRPC INVALID_ARGUMENT, each with reason INVALID_PARAMS, which a2a-js reads as RequestMalformedError),
 * saying the agent refused the request as too large; the facade's 0.2.5 callers get -32602 too. Before,
 * it was InvalidAgentResponse (-32006, HTTP 500, gRPC INTERNAL) "The upstream agent answered HTTP 413".
 */
import { status } from '@grpc/grpc-js';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { TRANSPORTS, connect, rejectionOf, sendRequest, wireCode } from '../../support/sdk-v1-client.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

/** Past express's default `limit: '100kb'` once the gateway has wrapped it in its own request. */
const BIG = 'x'.repeat(200_000);
const TOO_LARGE = /^The upstream agent refused the request as too large \(HTTP 413\)/;

describe.each([
  ['JSON-RPC', false],
  ['HTTP+JSON', true],
])('an a2a-js 1.x agent over %s refusing a request as too large (HTTP 413)', (_binding, restOnly) => {
  let agent: RunningSdkV1Agent;
  let gateway: TestGateway;

  beforeAll(async () => {
    agent = await startSdkV1Agent({ restOnly });
    // `max-body-bytes` above the agent's limit: the gateway takes the request, the agent does not.
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 }, 'max-body-bytes': 1_000_000 });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it.each(TRANSPORTS)('the a2a-js 1.x client over %s gets InvalidParams, not InvalidAgentResponse', async (transport) => {
    const { client } = await connect(gateway.url, transport);
    for (const call of [client.sendMessage(sendRequest(BIG)), client.sendMessageStream(sendRequest(BIG))]) {
      const failure = await rejectionOf(call);
      expect(failure).toMatchObject({ reason: 'INVALID_PARAMS', code: wireCode(transport, -32602) });
      expect(failure.message).toMatch(TOO_LARGE);
    }
  });

  it('the a2a-js 1.x client over gRPC gets INVALID_ARGUMENT with reason INVALID_PARAMS', async () => {
    const transport = await grpcTransport(gateway);
    for (const call of [transport.sendMessage(sendRequest(BIG), wire()), transport.sendMessageStream(sendRequest(BIG), wire())]) {
      const failure = await grpcFailureOf(call);
      expect(failure).toMatchObject({ status: status.INVALID_ARGUMENT, reason: 'INVALID_PARAMS' });
      expect(failure.message).toMatch(/refused the request as too large \(HTTP 413\)/);
    }
  });

  it("the facade's 0.2.5 client gets -32602 for message/send and message/stream", async () => {
    const client = new A2AClient(gateway.url);
    const message = {
      kind: 'message' as const,
      role: 'user' as const,
      messageId: `m-${Math.random()}`,
      parts: [{ kind: 'text' as const, text: BIG }],
    };
    const sent: any = await client.sendMessage({ message });
    expect(sent.error?.code).toBe(-32602);
    expect(sent.error?.message).toMatch(/HTTP 413/);
    await expect(
      (async () => {
        for await (const _event of client.sendMessageStream({ message: { ...message, messageId: `m-${Math.random()}` } }));
      })(),
    ).rejects.toThrow(/Code: -32602/);
  });
});

/**
 * An agent that refuses a stream by opening it with the error as its first event (a2a-js 0.2.5 servers
 * do so for an unknown task: test/e2e/upstreams/follow-up-refusals.test.ts) has accepted nothing: the
 * gateway answers its refusal as a plain error, typed on every binding, as an a2a-js 1.x agent and
 * iac-code answer an error before their first event (their SDKs read the first event before they send
 * headers). An error after an event stays the stream's own. Read through the official a2a-js 1.x client.
 */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { StreamReader, connect, outline, rejectionOf, sendRequest, type RecordingClient } from '../../support/sdk-v1-client.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

const REFUSED = 'RuntimeError: failed to read [path] with Bearer [redacted]';

describe('a 1.0 agent whose stream opens with an error', () => {
  let agent: FakeIacCode;
  let gateway: TestGateway;
  let jsonRpc: RecordingClient;
  let rest: RecordingClient;
  beforeAll(async () => {
    agent = await startFakeIacCode();
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    jsonRpc = await connect(gateway.url, 'JSONRPC');
    rest = await connect(gateway.url, 'HTTP+JSON');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('is a plain error: JSON-RPC -32603, HTTP+JSON 500 INTERNAL, gRPC INTERNAL', async () => {
    const refusing = () => sendRequest('make vpc [fault:error-event after=0]');
    expect(await rejectionOf(jsonRpc.client.sendMessageStream(refusing()))).toMatchObject({ code: -32603, message: REFUSED });
    expect(await rejectionOf(rest.client.sendMessageStream(refusing()))).toMatchObject({ code: 500, message: REFUSED });
    const grpc = await grpcTransport(gateway);
    expect(await grpcFailureOf(grpc.sendMessageStream(refusing(), wire()))).toMatchObject({
      status: status.INTERNAL,
      message: expect.stringContaining(REFUSED),
    });
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)('%s: an error after the first event ends the stream that began', async (transport) => {
    const { client } = transport === 'JSONRPC' ? jsonRpc : rest;
    const stream = new StreamReader(client.sendMessageStream(sendRequest('make vpc [fault:error-event after=1]')));
    expect(outline(await stream.expectNext())).toBe('task');
    await expect(stream.rest()).rejects.toThrow(REFUSED);
  });
});

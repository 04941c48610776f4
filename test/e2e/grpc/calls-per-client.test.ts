/**
 * `server.max-connections-per-client` on the gRPC port: HTTP/2 multiplexes any number of calls over one
 * connection, so the calls one client address has open are what is counted. As the official a2a-js 1.x
 * gRPC client meets it in front of an agent that holds each turn: the call past the cap (any method) is
 * RESOURCE_EXHAUSTED with the reason, before the agent is asked; a call that ends gives its place back;
 * behind a trusted proxy each forwarded client has its own count.
 */
import { status } from '@grpc/grpc-js';
import type { StreamResponse } from 'a2a-sdk-1';
import type { Transport } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/model/index.js';
import { peerAddress } from '../../../src/surfaces/grpc/calls-per-client.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { sendRequest } from '../../support/sdk-v1-client.js';
import { grpcFailureOf, grpcTransport, wire } from './grpc-client.js';

const CAP = 2;
const REFUSAL = A2AError.tooManyRequestsInFlight(CAP).message;

let agent: HeldTurnsAgent;
beforeAll(async () => {
  agent = await startHeldTurnsAgent();
});
afterAll(() => agent?.close());

/** A gateway whose gRPC port caps each client at CAP open calls, and the SDK's transport to it. */
function cappedGateway(extra: Record<string, unknown> = {}): { gateway: TestGateway; transport: Transport } {
  const running = {} as { gateway: TestGateway; transport: Transport };
  beforeAll(async () => {
    running.gateway = await startTestGateway({
      grpc: { port: 0 },
      server: { 'max-connections-per-client': CAP },
      upstream: { url: agent.url },
      ...extra,
    });
    running.transport = await grpcTransport(running.gateway);
  });
  afterAll(() => running.gateway?.close());
  return running;
}

/** A streamed turn the agent holds, its first event read. */
async function holdStream(transport: Transport, metadata: Record<string, string> = {}): Promise<AsyncIterator<StreamResponse>> {
  const stream = transport.sendMessageStream(sendRequest('hold'), wire(metadata))[Symbol.asyncIterator]();
  await stream.next();
  return stream;
}

async function endAll(streams: Array<AsyncIterator<StreamResponse>>): Promise<void> {
  for (const turn of agent.held()) turn.complete();
  for (const stream of streams) await stream.return?.();
}

describe('one client address, calls multiplexed over one connection', () => {
  const running = cappedGateway();

  it(`past ${CAP} open calls: RESOURCE_EXHAUSTED with the reason, for any method, before the agent; an ended call frees its place`, async () => {
    const { transport } = running;
    const streams = [await holdStream(transport), await holdStream(transport)];
    try {
      const sent = agent.calls('SendMessage') + agent.calls('SendStreamingMessage');
      const [first] = agent.held();
      for (const failure of [
        await grpcFailureOf(transport.sendMessage(sendRequest('one too many'), wire())),
        await grpcFailureOf(transport.sendMessageStream(sendRequest('one too many, streamed'), wire())),
        await grpcFailureOf(transport.getTask({ tenant: '', id: first!.taskId, historyLength: undefined }, wire())),
      ]) {
        expect(failure.status).toBe(status.RESOURCE_EXHAUSTED);
        expect(failure.message).toContain(REFUSAL);
      }
      expect(agent.calls('SendMessage') + agent.calls('SendStreamingMessage')).toBe(sent);
      expect(running.gateway.grpcLog().filter((line) => line.grpcStatus === status.RESOURCE_EXHAUSTED)).toHaveLength(3);

      first!.complete();
      const ended = streams.shift()!;
      for (let next = await ended.next(); !next.done; next = await ended.next());
      expect((await transport.getTask({ tenant: '', id: first!.taskId, historyLength: undefined }, wire())).id).toBe(first!.taskId);
    } finally {
      await endAll(streams);
    }
  });

  it('a call refused for its credentials gives its place back at once', async () => {
    const { transport } = running;
    const streams = [await holdStream(transport)];
    try {
      for (let i = 0; i < 3; i++) {
        const failure = await grpcFailureOf(transport.getTask({ tenant: '', id: 'x', historyLength: undefined }, wire({ 'a2a-version': '9.9' })));
        expect(failure.status).not.toBe(status.RESOURCE_EXHAUSTED);
      }
      streams.push(await holdStream(transport));
    } finally {
      await endAll(streams);
    }
  });
});

describe('behind a trusted proxy', () => {
  const running = cappedGateway({ 'trust-proxy': true });

  it('each forwarded client has its own count', async () => {
    const { transport } = running;
    const from = (client: string) => ({ 'x-forwarded-for': `10.9.9.9, ${client}` });
    const streams = [await holdStream(transport, from('203.0.113.7')), await holdStream(transport, from('203.0.113.7'))];
    try {
      const refused = await grpcFailureOf(transport.sendMessage(sendRequest('one too many'), wire(from('203.0.113.7'))));
      expect(refused.status).toBe(status.RESOURCE_EXHAUSTED);
      streams.push(await holdStream(transport, from('198.51.100.1')));
    } finally {
      await endAll(streams);
    }
  });
});

describe('peerAddress', () => {
  it('drops the port of every form grpc-js gives a peer', () => {
    expect(peerAddress('ipv4:127.0.0.1:5678')).toBe('127.0.0.1');
    expect(peerAddress('127.0.0.1:5678')).toBe('127.0.0.1');
    expect(peerAddress('ipv6:[::1]:5678')).toBe('::1');
    expect(peerAddress('[2001:db8::7]:443')).toBe('2001:db8::7');
    expect(peerAddress('unix:/tmp/socket')).toBe('unix:/tmp/socket');
  });
});

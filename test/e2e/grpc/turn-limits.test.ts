/**
 * A client's turns in flight capped (limits.*) on the gRPC binding, as the official a2a-js 1.x gRPC
 * client meets it in front of an agent that holds each turn until the test ends it: the turn past the
 * cap is RESOURCE_EXHAUSTED before it reaches the agent (unary and streaming), another client's turn
 * goes through, GetTask is not a turn (SubscribeToTask holds a slot as a stream does), and a stream its caller cancels or the agent
 * ends gives its slot back; gRPC and HTTP callers with one key share one count.
 */
import { status } from '@grpc/grpc-js';
import type { StreamResponse } from 'a2a-sdk-1';
import type { Transport } from 'a2a-sdk-1/client';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { beforeAll, describe, expect, it } from 'vitest';
import { asTask, connect, rejectionOf, sendRequest } from '../../support/sdk-v1-client.js';
import { CAP, admittedWithin, heldTurnsBehindCappedGateway, refusalText, tokenOf } from '../../support/turn-limits.js';
import { grpcFailureOf, grpcTransport, wire } from './grpc-client.js';

const running = heldTurnsBehindCappedGateway({ grpc: { port: 0 } });
let transport: Transport;

beforeAll(async () => {
  transport = await grpcTransport(running.gateway, { authorization: `Bearer ${tokenOf('alpha')}` });
});

const as = (name: string) => wire({ authorization: `Bearer ${tokenOf(name)}` });
const isRefusal = (error: unknown): boolean => isGrpcError(error) && error.status === status.RESOURCE_EXHAUSTED;

/** A streamed turn the agent holds, its first event read. */
async function holdStream(name: string): Promise<AsyncIterator<StreamResponse>> {
  const stream = transport.sendMessageStream(sendRequest('hold'), as(name))[Symbol.asyncIterator]();
  await stream.next();
  return stream;
}

async function endAll(streams: Array<AsyncIterator<StreamResponse>>): Promise<void> {
  for (const turn of running.agent.held()) turn.complete();
  for (const stream of streams) await stream.return?.();
}

describe('the gRPC binding at a client’s cap', () => {
  it('the turn past the cap is RESOURCE_EXHAUSTED, unary or streaming, before the agent; another client goes through', async () => {
    const streams = [await holdStream('alpha'), await holdStream('alpha')];
    try {
      const sent = running.agent.calls('SendMessage') + running.agent.calls('SendStreamingMessage');
      for (const failure of [
        await grpcFailureOf(transport.sendMessage(sendRequest('one too many'), as('alpha'))),
        await grpcFailureOf(transport.sendMessageStream(sendRequest('one too many, streamed'), as('alpha'))),
      ]) {
        expect(failure.status).toBe(status.RESOURCE_EXHAUSTED);
        expect(failure.message).toContain(refusalText(CAP));
      }
      expect(running.agent.calls('SendMessage') + running.agent.calls('SendStreamingMessage')).toBe(sent);
      expect(running.gateway.grpcLog().filter((line) => line.grpcStatus === status.RESOURCE_EXHAUSTED && line.client === 'alpha')).toHaveLength(2);

      const answer = transport.sendMessage(sendRequest('another client'), as('beta'));
      (await running.agent.waitForHeld(CAP + 1)).at(-1)!.complete();
      expect(asTask(await answer).id).toBeTruthy();
    } finally {
      await endAll(streams);
    }
  });

  it('GetTask is not a turn: it goes through at the cap; SubscribeToTask holds a slot as a stream does: RESOURCE_EXHAUSTED', async () => {
    const streams = [await holdStream('gamma'), await holdStream('gamma')];
    try {
      const [first] = running.agent.held();
      expect((await transport.getTask({ tenant: '', id: first!.taskId, historyLength: undefined }, as('gamma'))).id).toBe(first!.taskId);
      const refused = await grpcFailureOf(transport.resubscribeTask({ tenant: '', id: first!.taskId }, as('gamma')));
      expect(refused.status).toBe(status.RESOURCE_EXHAUSTED);
      expect(refused.message).toContain(refusalText(CAP));
    } finally {
      await endAll(streams);
    }
  });

  it('a stream its caller cancels, and one the agent ends, each give their slot back, once', async () => {
    const streams = [await holdStream('delta'), await holdStream('delta')];
    try {
      const cancelled = streams.shift()!;
      const [leaving, finishing] = running.agent.held();
      await cancelled.return?.();
      expect(await leaving!.closed).toBe('client-closed');
      streams.push(await admittedWithin(() => holdStream('delta'), isRefusal));
      expect((await grpcFailureOf(transport.sendMessage(sendRequest('past the cap'), as('delta')))).status).toBe(status.RESOURCE_EXHAUSTED);

      finishing!.complete();
      for (let next = await streams[0]!.next(); !next.done; next = await streams[0]!.next());
      streams.push(await admittedWithin(() => holdStream('delta'), isRefusal));
      expect((await grpcFailureOf(transport.sendMessageStream(sendRequest('past the cap'), as('delta')))).status).toBe(status.RESOURCE_EXHAUSTED);
    } finally {
      await endAll(streams);
    }
  });

  it('one key is one client on every binding: turns held over gRPC count for its JSON-RPC calls', async () => {
    const streams = [await holdStream('epsilon'), await holdStream('epsilon')];
    try {
      const { client } = await connect(running.gateway.url, 'JSONRPC', { token: tokenOf('epsilon') });
      expect((await rejectionOf(client.sendMessage(sendRequest('over HTTP')))).message).toContain(refusalText(CAP));
    } finally {
      await endAll(streams);
    }
  });
});

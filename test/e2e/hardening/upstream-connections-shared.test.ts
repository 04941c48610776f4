/**
 * One client cannot starve the others of the agent's connections (`upstream.connections`). Every open stream
 * holds one of them for its whole life, a SubscribeToTask as much as a SendStreamingMessage, so a client's
 * subscriptions count toward its cap on turns in flight (limits.*) as its streams do: the one past the cap is
 * refused in the caller's binding. And a call that finds every connection held (clients at their caps fill
 * the pool between them) is refused as unavailable after `upstream.queue-timeout-ms`, never sent, rather than
 * left waiting for as long as the streams run. As the official a2a-js 1.x client meets it over JSON-RPC,
 * HTTP+JSON and gRPC, in front of an agent that holds each turn (and each subscription) until the test ends it.
 */
import { status } from '@grpc/grpc-js';
import { TaskState } from 'a2a-sdk-1';
import type { Transport } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, GATEWAY_FAILURES, GatewayErrorCode } from '../../../src/model/index.js';
import { rpc, sdkParams } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import {
  StreamReader,
  TRANSPORTS,
  asTask,
  connect,
  outline,
  payloadRef,
  rejectionOf,
  sendRequest,
  type TransportName,
} from '../../support/sdk-v1-client.js';
import { CAP, admittedWithin, cappedGatewayConfig, refusalText, tokenOf } from '../../support/turn-limits.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

/** How long a queued call may wait in these tests: far below the bound the test puts on "it never came back". */
const QUEUE_TIMEOUT_MS = 300;
/** Longer than any refusal here takes on a loaded host; a call still unanswered then would wait for as long as the streams run. */
const HANG_MS = 15_000;

/** The call's outcome, or a failure saying it still waits after HANG_MS (the pool's queue had no bound). */
async function within<T>(call: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting for an upstream connection after ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    return await Promise.race([call, hung]);
  } finally {
    clearTimeout(timer);
  }
}

let agent: HeldTurnsAgent;
beforeAll(async () => {
  agent = await startHeldTurnsAgent();
});
afterAll(() => agent?.close());

/** A gateway whose pool to the agent has `connections`, every client capped at CAP. */
function gatewayWith(connections: number): { gateway: TestGateway; grpc: () => Transport } {
  const running = {} as { gateway: TestGateway; grpc: Transport };
  beforeAll(async () => {
    running.gateway = await startTestGateway(
      cappedGatewayConfig(agent.url, {
        upstream: { url: agent.url, connections, 'queue-timeout-ms': QUEUE_TIMEOUT_MS },
        grpc: { port: 0 },
      }),
    );
    running.grpc = await grpcTransport(running.gateway);
  });
  afterAll(() => running.gateway?.close());
  return {
    get gateway() {
      return running.gateway;
    },
    grpc: () => running.grpc,
  };
}

/** A streamed turn of `token`'s client that the agent holds, and a subscription to it (each its first event read). */
async function turnAndSubscription(gateway: TestGateway, transport: TransportName, token: string): Promise<StreamReader[]> {
  const { client } = await connect(gateway.url, transport, { token });
  const turn = new StreamReader(client.sendMessageStream(sendRequest('a long turn')));
  const { taskId } = payloadRef(await turn.expectNext());
  const subscription = new StreamReader(client.resubscribeTask({ tenant: '', id: taskId }));
  expect((await subscription.expectNext()).$case).toBe('task');
  return [turn, subscription];
}

async function endAll(readers: StreamReader[]): Promise<void> {
  for (const turn of agent.held()) turn.complete();
  for (const reader of readers) await reader.close();
}

describe('a subscription holds a slot under its client’s cap, as a stream does', () => {
  // Room for one client at its cap and one more call: the pool the reviewer saw taken by one key's subscriptions.
  const running = gatewayWith(CAP + 1);

  it.each(TRANSPORTS)('over %s: the subscription past the cap is refused as a turn is; another client is answered', async (transport) => {
    const name = transport === 'JSONRPC' ? 'alpha' : 'beta';
    const readers = await turnAndSubscription(running.gateway, transport, tokenOf(name));
    try {
      const { client } = await connect(running.gateway.url, transport, { token: tokenOf(name) });
      const [held] = agent.held();
      const subscribed = agent.calls('SubscribeToTask');
      const refusal = await within(rejectionOf(client.resubscribeTask({ tenant: '', id: held!.taskId })), 'the subscription past the cap');
      expect(refusal.code).toBe(transport === 'JSONRPC' ? GatewayErrorCode.TooManyTurnsInFlight : 429);
      expect(refusal.message).toContain(refusalText(CAP));
      expect(agent.calls('SubscribeToTask'), 'the refused subscription never reached the agent').toBe(subscribed);

      const { client: other } = await connect(running.gateway.url, transport, { token: tokenOf('gamma') });
      const answer = within(other.sendMessage(sendRequest('another client')), "another client's SendMessage");
      (await agent.waitForHeld(2)).at(-1)!.complete();
      expect(asTask(await answer).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await endAll(readers);
    }
  });

  it('over gRPC: the subscription past the cap is RESOURCE_EXHAUSTED, counted with the client’s HTTP streams', async () => {
    const readers = await turnAndSubscription(running.gateway, 'JSONRPC', tokenOf('delta'));
    try {
      const [held] = agent.held();
      const subscription = running.grpc().resubscribeTask({ tenant: '', id: held!.taskId }, wire({ authorization: `Bearer ${tokenOf('delta')}` }));
      const failure = await within(grpcFailureOf(subscription), 'the gRPC subscription past the cap');
      expect(failure.status).toBe(status.RESOURCE_EXHAUSTED);
      expect(failure.message).toContain(refusalText(CAP));
    } finally {
      await endAll(readers);
    }
  });
});

describe('a call that finds every upstream connection held', () => {
  // Exactly one client's cap: a client at its cap (a turn and a subscription) holds the whole pool.
  const running = gatewayWith(CAP);

  it.each(TRANSPORTS)(
    'over %s: is refused as unavailable within queue-timeout-ms, never sent; once a stream ends it goes through',
    async (transport) => {
      const readers = await turnAndSubscription(running.gateway, transport, tokenOf('epsilon'));
      try {
        const { client } = await connect(running.gateway.url, transport, { token: tokenOf('zeta') });
        const sent = agent.calls('SendMessage');
        const refusal = await within(rejectionOf(client.sendMessage(sendRequest('waits for a connection'))), "another client's SendMessage");
        expect(refusal.code).toBe(transport === 'JSONRPC' ? ErrorCode.Internal : 503);
        expect(refusal.message).toContain(GATEWAY_FAILURES.upstreamBusy);
        expect(agent.calls('SendMessage'), 'the refused message never reached the agent').toBe(sent);

        // The streams that had their connections before the bound were not cut by it: each ends with the turn.
        for (const turn of agent.held()) turn.complete();
        for (const reader of readers.splice(0))
          expect((await reader.rest()).map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_COMPLETED}`);
        const busy = (error: unknown): boolean => error instanceof Error && error.message.includes(GATEWAY_FAILURES.upstreamBusy);
        const answer = admittedWithin(() => client.sendMessage(sendRequest('after the streams ended')), busy);
        (await agent.waitForHeld(1)).at(-1)!.complete();
        expect(asTask(await answer).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        // The refused call left undici's queue unwritten once it reached a connection: only the one admitted came.
        expect(agent.calls('SendMessage')).toBe(sent + 1);
      } finally {
        await endAll(readers);
      }
    },
  );

  it('over raw HTTP: 503 with Retry-After on JSON-RPC and HTTP+JSON; over gRPC: UNAVAILABLE; on the facade: in its user’s words', async () => {
    const readers = await turnAndSubscription(running.gateway, 'JSONRPC', tokenOf('theta'));
    try {
      const headers = { authorization: `Bearer ${tokenOf('alpha')}`, 'content-type': 'application/json', 'a2a-version': '1.0' };
      const message = { messageId: 'm-queued', role: 'ROLE_USER', parts: [{ text: 'queued' }] };
      const jsonRpc = await within(
        fetch(`${running.gateway.url}/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message } }),
        }),
        'JSON-RPC SendMessage',
      );
      expect(jsonRpc.status).toBe(503);
      expect(jsonRpc.headers.get('retry-after')).toBe('5');
      expect(await jsonRpc.json()).toEqual({ jsonrpc: '2.0', id: 9, error: { code: ErrorCode.Internal, message: GATEWAY_FAILURES.upstreamBusy } });
      const rest = await within(
        fetch(`${running.gateway.url}/message:send`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ message: { ...message, messageId: 'm-queued-2' } }),
        }),
        'HTTP+JSON message:send',
      );
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(await rest.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE', message: GATEWAY_FAILURES.upstreamBusy } });

      const grpc = await within(
        grpcFailureOf(running.grpc().sendMessage(sendRequest('queued, over gRPC'), wire({ authorization: `Bearer ${tokenOf('alpha')}` }))),
        'gRPC SendMessage',
      );
      expect(grpc.status).toBe(status.UNAVAILABLE);
      expect(grpc.message).toContain(GATEWAY_FAILURES.upstreamBusy);

      // A Bailian user behind the 0.2.5 facade reads it in their own language, as a 0.2.5 error (HTTP 200).
      const facade = await within(rpc(`${running.gateway.url}/`, 'message/send', sdkParams('你好，请帮我创建一个专有网络')), 'facade message/send');
      expect(facade.status).toBe(200);
      expect(facade.body.error).toEqual({ code: ErrorCode.Internal, message: '上游智能体的所有连接都在使用中，请稍后重试' });
      // The operator is told the cap turned calls away (at most once a minute, with how many were left out).
      const warned = running.gateway.log().filter((line) => line.msg === 'upstream connections all in use; a call was refused');
      expect(warned[0]).toMatchObject({ level: 40, connections: CAP, queueTimeoutMs: QUEUE_TIMEOUT_MS });
    } finally {
      await endAll(readers);
    }
  });
});

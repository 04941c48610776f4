/**
 * A client's turns in flight capped (limits.*), as the official a2a-js 1.x client meets it over
 * JSON-RPC and HTTP+JSON, in front of an agent that holds each turn until the test ends it: the turn
 * past the cap is refused in the caller's protocol before it reaches the agent, while other clients'
 * turns and the client's own non-turn calls (but a subscription, which holds a slot as a stream does) go through; the old and the new key of one name share a
 * cap, an unnamed key is a client of its own, a name can have its own cap. Every slot given back:
 * turn-limits-release.test.ts.
 */
import { TaskState } from 'a2a-sdk-1';
import { describe, expect, it } from 'vitest';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { scrape, value } from '../../support/prometheus.js';
import { StreamReader, TRANSPORTS, asTask, connect, listRequest, rejectionOf, sendRequest, type TransportName } from '../../support/sdk-v1-client.js';
import {
  CAP,
  NEXT_KEY,
  ROTATING,
  SOLO,
  UNCAPPED,
  UNNAMED_TOKEN,
  heldTurnsBehindCappedGateway,
  refusalText,
  tokenOf,
} from '../../support/turn-limits.js';

const running = heldTurnsBehindCappedGateway();

/** How a refused turn reads on a binding: the JSON-RPC error code, or the HTTP status of HTTP+JSON. */
const refusedCode = (transport: TransportName): number => (transport === 'JSONRPC' ? GatewayErrorCode.TooManyTurnsInFlight : 429);

/** `count` streamed turns of the holder of `token`, each held by the agent (its first events read). */
async function holdStreams(transport: TransportName, token: string, count: number): Promise<StreamReader[]> {
  const { client } = await connect(running.gateway.url, transport, { token });
  const readers: StreamReader[] = [];
  for (let i = 0; i < count; i++) {
    const reader = new StreamReader(client.sendMessageStream(sendRequest(`hold ${i}`)));
    await reader.expectNext();
    readers.push(reader);
  }
  return readers;
}

/** Ends every turn the agent still holds, and lets go of the readers. */
async function endAll(readers: StreamReader[]): Promise<void> {
  for (const turn of running.agent.held()) turn.complete();
  for (const reader of readers) await reader.close();
}

describe.each(TRANSPORTS)('official a2a-js 1.x client over %s', (transport) => {
  const name = transport === 'JSONRPC' ? 'alpha' : 'beta';
  const other = transport === 'JSONRPC' ? 'gamma' : 'delta';

  it(`the turn past the cap (${CAP}) is refused before the agent, blocking or streamed; another client's turn goes through meanwhile`, async () => {
    const readers = await holdStreams(transport, tokenOf(name), CAP);
    try {
      const { client } = await connect(running.gateway.url, transport, { token: tokenOf(name) });
      const sent = running.agent.calls('SendMessage') + running.agent.calls('SendStreamingMessage');
      const blocking = await rejectionOf(client.sendMessage(sendRequest('one too many')));
      const streamed = await rejectionOf(client.sendMessageStream(sendRequest('one too many, streamed')));
      for (const refusal of [blocking, streamed]) {
        expect(refusal.code).toBe(refusedCode(transport));
        expect(refusal.message).toContain(refusalText(CAP));
      }
      expect(running.agent.calls('SendMessage') + running.agent.calls('SendStreamingMessage'), 'the refused turns never reached the agent').toBe(
        sent,
      );

      const { client: otherClient } = await connect(running.gateway.url, transport, { token: tokenOf(other) });
      const answer = otherClient.sendMessage(sendRequest('another client'));
      const [, , theirs] = await running.agent.waitForHeld(CAP + 1);
      theirs!.complete();
      expect(asTask(await answer).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await endAll(readers);
    }
  });

  it("the client's other calls are not turns: GetTask, ListTasks and CancelTask go through at the cap; a subscription holds a slot", async () => {
    const token = tokenOf(transport === 'JSONRPC' ? 'epsilon' : 'zeta');
    const readers = await holdStreams(transport, token, CAP);
    try {
      const { client } = await connect(running.gateway.url, transport, { token });
      const [first, second] = running.agent.held();
      expect((await client.getTask({ tenant: '', id: first!.taskId, historyLength: undefined })).id).toBe(first!.taskId);
      expect((await client.listTasks(listRequest())).tasks.map((task) => task.id).sort()).toEqual([first!.taskId, second!.taskId].sort());
      // A subscription holds an upstream connection as a stream does (upstream-connections-shared.test.ts): refused at the cap.
      const subscription = await rejectionOf(client.resubscribeTask({ tenant: '', id: first!.taskId }));
      expect(subscription.code).toBe(refusedCode(transport));
      expect(subscription.message).toContain(refusalText(CAP));
      expect((await client.cancelTask({ tenant: '', id: second!.taskId, metadata: undefined })).id).toBe(second!.taskId);
    } finally {
      await endAll(readers);
    }
  });
});

describe('whom a turn counts for', () => {
  it("the old and the new key of one name share the name's cap (a rotation does not double a client's share)", async () => {
    const readers = [...(await holdStreams('JSONRPC', tokenOf(ROTATING), 1)), ...(await holdStreams('HTTP+JSON', NEXT_KEY, 1))];
    try {
      for (const token of [tokenOf(ROTATING), NEXT_KEY]) {
        const { client } = await connect(running.gateway.url, 'JSONRPC', { token });
        expect((await rejectionOf(client.sendMessage(sendRequest('third of the name')))).code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
      }
    } finally {
      await endAll(readers);
    }
  });

  it('an unnamed key is a client of its own, with the common cap, whichever binding it calls', async () => {
    const readers = await holdStreams('JSONRPC', UNNAMED_TOKEN, CAP);
    try {
      const { client } = await connect(running.gateway.url, 'HTTP+JSON', { token: UNNAMED_TOKEN });
      expect((await rejectionOf(client.sendMessage(sendRequest('past the cap')))).code).toBe(429);
    } finally {
      await endAll(readers);
    }
  });

  it('a name with a cap of its own: 1 for one client, none for another', async () => {
    const readers = await holdStreams('JSONRPC', tokenOf(SOLO), 1);
    try {
      const { client } = await connect(running.gateway.url, 'JSONRPC', { token: tokenOf(SOLO) });
      const refusal = await rejectionOf(client.sendMessage(sendRequest('second for solo')));
      expect(refusal).toMatchObject({ code: GatewayErrorCode.TooManyTurnsInFlight });
      expect(refusal.message).toContain(refusalText(1));
      readers.push(...(await holdStreams('JSONRPC', tokenOf(UNCAPPED), CAP + 2)));
    } finally {
      await endAll(readers);
    }
  });
});

describe('what else sees a refused turn', () => {
  it('HTTP: 429 with Retry-After and the binding’s own error body; the metrics count it by client', async () => {
    const readers = await holdStreams('JSONRPC', tokenOf('theta'), CAP);
    try {
      const headers = { authorization: `Bearer ${tokenOf('theta')}`, 'content-type': 'application/json', 'a2a-version': '1.0' };
      const message = { messageId: 'm-refused', role: 'ROLE_USER', parts: [{ text: 'too many' }] };
      const rpc = await fetch(`${running.gateway.url}/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message } }),
      });
      expect(rpc.status).toBe(429);
      expect(rpc.headers.get('retry-after')).toBe('5');
      expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: refusalText(CAP) } });
      const rest = await fetch(`${running.gateway.url}/message:send`, { method: 'POST', headers, body: JSON.stringify({ message }) });
      expect(rest.status).toBe(429);
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(await rest.json()).toEqual({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: refusalText(CAP), details: [] } });

      const samples = await scrape(running.gateway.url);
      expect(value(samples, 'a2a_bridge_turns_refused_total', { client: 'theta', surface: 'jsonrpc' })).toBe(1);
      expect(value(samples, 'a2a_bridge_turns_refused_total', { client: 'theta', surface: 'rest' })).toBe(1);
      expect(value(samples, 'a2a_bridge_requests_total', { client: 'theta', error_code: '-32000' })).toBe(2);
    } finally {
      await endAll(readers);
    }
  });
});

/**
 * Every turn gives its slot back exactly once, however it ends (limits.*): a client at its cap gets
 * exactly one more turn in once one of its turns ended by its stream's end, a blocking answer, the
 * agent's error, the agent's connection cut mid-stream, the caller leaving a stream, or the agent
 * answering a blocking call its caller left; and not two (a slot given back twice would let the client past its cap). The official a2a-js
 * 1.x client over JSON-RPC and HTTP+JSON, in front of an agent that holds each turn until the test ends it.
 */
import { describe, expect, it } from 'vitest';
import { isJsonRpcError, isRestError } from 'a2a-sdk-1/errors';
import type { Client } from 'a2a-sdk-1/client';
import { GatewayErrorCode } from '../../../src/model/index.js';
import type { HeldTurn } from '../../support/held-turns-agent.js';
import { StreamReader, TRANSPORTS, connect, rejectionOf, sendRequest, type TransportName } from '../../support/sdk-v1-client.js';
import { CAP, admittedWithin, heldTurnsBehindCappedGateway, clientName, tokenOf } from '../../support/turn-limits.js';

const running = heldTurnsBehindCappedGateway();

const isRefusal = (error: unknown): boolean =>
  (isJsonRpcError(error) && error.envelopeCode === GatewayErrorCode.TooManyTurnsInFlight) || (isRestError(error) && error.statusCode === 429);

/** A turn the agent holds: a stream with its first event read, or a blocking call still waiting for its answer. */
interface Held {
  turn: HeldTurn;
  reader?: StreamReader;
  answer?: Promise<unknown>;
  caller: AbortController;
}

async function holdStream(client: Client): Promise<Held> {
  const before = running.agent.held().length;
  const caller = new AbortController();
  const reader = new StreamReader(client.sendMessageStream(sendRequest('hold a stream'), { signal: caller.signal }));
  await reader.expectNext();
  return { turn: (await running.agent.waitForHeld(before + 1)).at(-1)!, reader, caller };
}

async function holdBlocking(client: Client): Promise<Held> {
  const before = running.agent.held().length;
  const caller = new AbortController();
  const answer = client.sendMessage(sendRequest('hold a blocking call'), { signal: caller.signal });
  answer.catch(() => undefined);
  return { turn: (await running.agent.waitForHeld(before + 1)).at(-1)!, answer, caller };
}

/** The ways a turn ends, each applied to one held turn; resolves once the caller has seen the end. */
const ENDINGS: Array<[string, (client: Client) => Promise<Held>, (held: Held) => Promise<unknown>]> = [
  ['stream ends with the turn', holdStream, async ({ turn, reader }) => (turn.complete(), reader!.rest())],
  ['blocking call is answered', holdBlocking, async ({ turn, answer }) => (turn.complete(), answer)],
  ['blocking call the agent answers with an error', holdBlocking, async ({ turn, answer }) => (turn.fail(), rejectionOf(answer!))],
  ['stream the agent cuts off mid-turn', holdStream, async ({ turn, reader }) => (turn.fail(), reader!.rest().catch(() => undefined))],
  ['stream its caller leaves', holdStream, async ({ turn, reader }) => (await reader!.close(), turn.closed)],
  // The agent goes on with a turn its caller stopped waiting for: the slot is the turn's until the agent answers.
  ['blocking call its caller gives up', holdBlocking, async ({ turn, caller }) => (caller.abort(), turn.complete(), turn.closed)],
];

describe.each(TRANSPORTS)('official a2a-js 1.x client over %s', (transport: TransportName) => {
  const refusedCode = transport === 'JSONRPC' ? GatewayErrorCode.TooManyTurnsInFlight : 429;
  it.each(ENDINGS.map((ending, index) => [...ending, index] as const))(
    'a turn whose %s gives its slot back, once',
    async (_ending, hold, end, index) => {
      const { client } = await connect(running.gateway.url, transport, {
        token: tokenOf(clientName(index + (transport === 'JSONRPC' ? 1 : 1 + ENDINGS.length))),
      });
      const held: Held[] = [];
      try {
        for (let i = 0; i < CAP; i++) held.push(await hold(client));
        expect((await rejectionOf(client.sendMessage(sendRequest('at the cap')))).code).toBe(refusedCode);
        await end(held.shift()!);
        // One slot is free again: a turn gets in (once the gateway has seen the end)...
        held.push(await admittedWithin(() => holdStream(client), isRefusal));
        // ...and only one: the ended turn did not give its slot back twice.
        expect((await rejectionOf(client.sendMessageStream(sendRequest('past the cap again')))).code).toBe(refusedCode);
      } finally {
        for (const { turn } of held) turn.complete();
        for (const { reader } of held) await reader?.close();
      }
    },
  );
});

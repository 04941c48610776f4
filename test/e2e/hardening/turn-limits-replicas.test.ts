/**
 * Two gateway replicas sharing one Redis (`store: redis`, one prefix) in front of one agent that holds
 * each turn until the test ends it, a client capped at 1: the cap holds across the replicas. A turn held
 * on replica A makes the client's next turn on replica B refused in the caller's protocol (the official
 * a2a-js 1.x client over JSON-RPC), before the agent is asked and counted in B's metrics; once A's turn
 * has ended, B lets the client's turn in. A replica that stops leaves no connection to Redis open.
 */
import { TaskState } from 'a2a-sdk-1';
import { isJsonRpcError } from 'a2a-sdk-1/errors';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { scrape, value } from '../../support/prometheus.js';
import { ownRedis } from '../../support/redis-server.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { StreamReader, connect, outline, rejectionOf, sendRequest } from '../../support/sdk-v1-client.js';
import { SOLO, admittedWithin, cappedGatewayConfig, refusalText, tokenOf } from '../../support/turn-limits.js';

const shared = freshRedisStores('turn-limits-replicas', afterAll);
let agent: HeldTurnsAgent;
let replicaA: TestGateway;
let replicaB: TestGateway;

beforeAll(async () => {
  await requireRedis();
  agent = await startHeldTurnsAgent();
  replicaA = await startTestGateway(cappedGatewayConfig(agent.url, shared));
  replicaB = await startTestGateway(cappedGatewayConfig(agent.url, shared));
});
afterAll(async () => {
  await replicaA?.close();
  await replicaB?.close();
  await agent?.close();
});

const isRefusal = (error: unknown): boolean => isJsonRpcError(error) && error.envelopeCode === GatewayErrorCode.TooManyTurnsInFlight;
const turnsAsked = (): number => agent.calls('SendMessage') + agent.calls('SendStreamingMessage');

describe('a client capped at 1 behind two replicas sharing Redis', () => {
  it("is refused on B while its turn runs on A, and let in on B once A's turn has ended", async () => {
    const onA = (await connect(replicaA.url, 'JSONRPC', { token: tokenOf(SOLO) })).client;
    const onB = (await connect(replicaB.url, 'JSONRPC', { token: tokenOf(SOLO) })).client;
    const held = new StreamReader(onA.sendMessageStream(sendRequest('held on A')));
    const readers = [held];
    try {
      await held.expectNext();
      const [turnOnA] = await agent.waitForHeld(1);

      const asked = turnsAsked();
      // Streamed first: a turn wrongly let in answers its first event at once, where a blocking one would wait for the agent.
      const streamed = await rejectionOf(onB.sendMessageStream(sendRequest('second turn, streamed on B')));
      const blocking = await rejectionOf(onB.sendMessage(sendRequest('second turn, on B')));
      for (const refusal of [streamed, blocking]) {
        expect(refusal.code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
        expect(refusal.message).toContain(refusalText(1));
      }
      expect(turnsAsked(), 'the refused turns never reached the agent').toBe(asked);
      expect(value(await scrape(replicaB.url), 'a2a_bridge_turns_refused_total', { client: SOLO, surface: 'jsonrpc' })).toBe(2);

      turnOnA!.complete();
      expect((await held.rest()).length).toBeGreaterThan(0);
      const turnOnB = await admittedWithin(async () => {
        const reader = new StreamReader(onB.sendMessageStream(sendRequest('second turn, on B, after A')));
        await reader.expectNext();
        return reader;
      }, isRefusal);
      readers.push(turnOnB);
      // The turn on B holds the client's one slot now: A refuses meanwhile.
      expect((await rejectionOf(onA.sendMessage(sendRequest('a third, on A')))).code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
      (await agent.waitForHeld(1))[0]!.complete();
      expect((await turnOnB.rest()).map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_COMPLETED}`);
    } finally {
      for (const turn of agent.held()) turn.complete();
      for (const reader of readers) await reader.close();
    }
  });
});

describe('a replica with turn caps that stops', () => {
  it('closes its connection to Redis for the slots, as it does the others', async () => {
    // A Redis of the test's own: its client list holds only this replica's connections and the test's.
    const redis = await ownRedis();
    const admin = new Redis(redis.url);
    try {
      const replica = await startTestGateway(cappedGatewayConfig(agent.url, { store: 'redis', 'redis-url': redis.url }));
      const { client } = await connect(replica.url, 'JSONRPC', { token: tokenOf(SOLO) });
      const turn = client.sendMessage(sendRequest('one turn'));
      (await agent.waitForHeld(1))[0]!.complete();
      await turn;
      const connected = async () =>
        String(await admin.client('LIST'))
          .trim()
          .split('\n').length;
      expect(await connected()).toBeGreaterThan(1);
      await replica.close();
      await expect.poll(connected).toBe(1);
    } finally {
      admin.disconnect();
      await redis.stop();
    }
  });
});

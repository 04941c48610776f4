/**
 * A conversation the agent holds though the gateway recorded no task of it: a caller's turn into a context
 * it named itself ended with nothing to record (the agent's error answer, the upstream call timing out)
 * while the agent kept the message in that context. The context is still its caller's: another credential
 * naming it is refused as for any context of another caller, and its message never reaches the agent,
 * on the memory store and across two replicas sharing Redis. Before, the context was owned only once a
 * task of it was recorded, so the other caller's message went on in the first caller's conversation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

const RUN = `a2a-bridge-test:unrecorded-context:${randomUUID()}:`;
const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
const ALICE = { ...V1, authorization: 'Bearer alice-token' };
const BOB = { ...V1, 'x-api-key': 'bob-key' };

let open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.reverse()) await item.close();
  open = [];
});
afterAll(() => deleteRedisKeys(RUN));

async function send(url: string, headers: Record<string, string>, text: string, contextId: string): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], contextId } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  return response.json();
}

const STORES = [
  { store: 'memory', replicas: 1 },
  { store: 'redis', replicas: 2 },
] as const;

const ENDINGS = [
  { ending: 'the agent answers an error', timeoutMs: 600_000, end: (agent: HeldTurnsAgent) => agent.held()[0]!.fail() },
  { ending: 'the upstream call times out', timeoutMs: 500, end: () => undefined },
];

describe.each(STORES)('$store store', ({ store, replicas }) => {
  it.each(ENDINGS)("a turn that ends with nothing recorded ($ending) leaves its context its caller's", async ({ timeoutMs, end }) => {
    const agent = await startHeldTurnsAgent();
    open.push(agent);
    const config = {
      upstream: { url: agent.url, 'request-timeout-ms': timeoutMs },
      auth: { token: 'alice-token', 'api-key': 'bob-key' },
      store,
      'redis-url': REDIS_URL,
      'redis-prefix': `${RUN}${randomUUID()}:`,
    };
    const gateways: TestGateway[] = [];
    for (let i = 0; i < replicas; i++) {
      const gateway = await startTestGateway(config);
      open.push(gateway);
      gateways.push(gateway);
    }
    const [first, last] = [gateways[0]!, gateways.at(-1)!];
    const contextId = `conversation-${randomUUID()}`;

    const alices = send(first.url, ALICE, 'my secret plan', contextId);
    await agent.waitForHeld(1);
    end(agent);
    expect((await alices).error?.code).toBe(-32603);
    const heard = agent.calls('SendMessage');

    const bobs = await send(last.url, BOB, 'what did we say?', contextId);
    expect(bobs.error).toMatchObject({ code: -32602, message: `Context ${contextId} is not available; start a new context` });
    expect(agent.calls('SendMessage')).toBe(heard);

    // Alice herself goes on in her conversation.
    const again = send(last.url, ALICE, 'where were we?', contextId);
    const [turn] = await agent.waitForHeld(1);
    expect(turn).toMatchObject({ contextId, text: 'where were we?' });
    turn!.complete();
    expect((await again).result.task.contextId).toBe(contextId);
  });
});

/**
 * A conversation outlives the gateway's record of its tasks: the agent keeps the context (iac-code
 * persists it), while the registry evicts tasks past `tasks.max-tasks` or after `tasks.idle-ttl-ms`.
 * The context's owner is remembered longer (`tasks.context-owner-ttl-ms`), so another caller who names
 * the context still cannot continue the conversation, on the memory and the Redis store.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

const RUN = `a2a-bridge-test:forgotten-context:${randomUUID()}:`;
const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
const ALICE = { ...V1, authorization: 'Bearer alice-token' };
const BOB = { ...V1, authorization: 'Bearer bob-token' };

async function call(url: string, headers: Record<string, string>, method: string, params: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return response.json();
}

const send = (url: string, headers: Record<string, string>, text: string, contextId?: string): Promise<any> =>
  call(url, headers, 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(contextId ? { contextId } : {}) },
  });

afterAll(async () => {
  await deleteRedisKeys(RUN);
});

describe.each([
  // One task kept: Bob's first task evicts Alice's.
  { store: 'memory', tasks: { 'max-tasks': 1 } },
  // Tasks expire after 300 ms: waiting forgets Alice's.
  { store: 'redis', tasks: { 'idle-ttl-ms': 300 }, 'redis-url': REDIS_URL },
])('a context whose tasks the $store store forgot', ({ store, ...config }) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({ ...config, store, 'redis-prefix': `${RUN}${randomUUID()}:`, auth: { tokens: ['alice-token', 'bob-token'] } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('stays its owner’s: another caller naming it is refused, its owner goes on', async () => {
    const first = await send(gateway.url, ALICE, 'my secret plan');
    const { id: taskId, contextId } = first.result.task;
    await send(gateway.url, BOB, 'something else');
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The registry has forgotten Alice's task…
    const lookup = await call(gateway.url, ALICE, 'GetTask', { id: taskId });
    expect(lookup.error?.code).toBe(-32001);
    // …but not whose conversation it is.
    const taken = await send(gateway.url, BOB, 'continue that plan', contextId);
    expect(taken.error?.code).toBe(-32602);
    expect(JSON.stringify(taken)).not.toContain('secret plan');
    const continued = await send(gateway.url, ALICE, 'and now?', contextId);
    expect(continued.error).toBeUndefined();
    expect(continued.result.task.contextId).toBe(contextId);
  });
});

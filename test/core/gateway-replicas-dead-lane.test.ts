/** Two gateway replicas sharing Redis: the replica running a turn dies; the other admits the context's next turn once the turn is over. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { createGateway } from '../../src/core/gateway.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { TaskState } from '../../src/model/index.js';
import { ctxOf, Feed, finishedTask, stubUpstream, taskFrame, userMessage, type StubUpstream } from '../support/gateway-stubs.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:dead-lane:${randomUUID()}:`;
// Far longer than any test here: a lane that comes free did so because it was taken over, not because it expired.
const LEASE_MS = 20_000;
const ALICE = ctxOf('basic:alice');
const BUSY = [-32602, 'Context C already has a turn in progress; retry when it has finished'];
const admin = new Redis(REDIS_URL);
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

afterAll(async () => {
  const keys = await admin.keys(`${RUN_PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

/** Replica A streams a turn of task T in context C, then dies mid-turn: its lane is never renewed nor released. */
async function replicaDiedMidTurn(upstreamB: StubUpstream) {
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const replica = (upstream: StubUpstream) => {
    const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 100 });
    const lanes = createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: LEASE_MS });
    closers.push(
      () => registry.close(),
      () => lanes.close(),
    );
    return { gateway: createGateway(upstream, { registry, lanes, upstreamName: 'up' }), lanes, registry };
  };
  const feed = new Feed().push(taskFrame('T', 'C'));
  const a = replica(stubUpstream({ sendStreamingMessage: () => feed.stream() }));
  const b = replica(upstreamB);
  const stream = a.gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
  await stream.next();
  // The turn's lane names its task as running.
  await expect.poll(() => admin.keys(`${prefix}lane:*`).then((keys) => (keys[0] ? admin.get(keys[0]) : null))).toMatch(/\|\|T$/);
  // Killed: no renewal, no release, no more writes; its stream is never pulled again.
  await a.lanes.close();
  await a.registry.close();
  // Dead a while: its lane's lease has run down past what a renewal would have left.
  for (const key of await admin.keys(`${prefix}lane:*`)) await admin.pexpire(key, LEASE_MS / 2);
  return b.gateway;
}

const upstreamSaying = (state: () => TaskState) =>
  stubUpstream({
    getTask: async () => finishedTask('T', 'C', state()),
    sendMessage: async () => ({ task: finishedTask('T2', 'C', 'TASK_STATE_COMPLETED') }),
  });

describe('a replica that died mid-turn', () => {
  it('keeps the context busy while the registry records the turn working, and not once it records it completed', async () => {
    let agentSays: TaskState = 'TASK_STATE_WORKING';
    const upstreamB = upstreamSaying(() => agentSays);
    const b = await replicaDiedMidTurn(upstreamB);

    const busy = await rejection(b.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
    expect([busy.code, busy.message]).toEqual(BUSY);

    agentSays = 'TASK_STATE_COMPLETED';
    expect((await b.getTask({ id: 'T' }, ALICE)).status.state).toBe('TASK_STATE_COMPLETED');
    const startedAt = Date.now();
    await expect(b.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({
      task: { id: 'T2', status: { state: 'TASK_STATE_COMPLETED' } },
    });
    expect(Date.now() - startedAt).toBeLessThan(LEASE_MS / 4);
    expect(upstreamB.calls.filter((call) => call === 'sendMessage')).toHaveLength(1);
  });

  it('leaves the lane to its lease while the registry records the task waiting for input (a live holder may just have paused)', async () => {
    const upstreamB = upstreamSaying(() => 'TASK_STATE_INPUT_REQUIRED');
    const b = await replicaDiedMidTurn(upstreamB);
    expect((await b.getTask({ id: 'T' }, ALICE)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const busy = await rejection(b.sendMessage({ message: userMessage({ contextId: 'C', taskId: 'T' }) }, ALICE));
    expect([busy.code, busy.message]).toEqual(BUSY);
  });
});

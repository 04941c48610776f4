/** Two gateway replicas sharing Redis: the replica running a turn dies; the other admits the context's next turn once the turn is over. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { createGateway } from '../../src/core/gateway.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { createRedisTurnSlots } from '../../src/core/turn-slots-redis.js';
import { defaultConfig } from '../../src/config/schema.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import type { TaskState } from '../../src/model/index.js';
import { ctxOf, Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage, type StubUpstream } from '../support/gateway-stubs.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:dead-lane:${randomUUID()}:`;
// Far longer than any test here: a lane that comes free did so because it was taken over, not because it expired.
const LEASE_MS = 20_000;
const ALICE = ctxOf('basic:alice');
const BUSY = [-32602, 'Context C already has a turn in progress; retry when it has finished'];
const AT_CAP = 'The agent is busy with too many requests from this client (at most 1 at once). Please try again in a moment.';
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

/**
 * Replicas of one gateway sharing a Redis prefix, each client capped at one turn in flight when `cappedAtOne`;
 * `writes`, when given, holds each of a replica's registry writes until it resolves. Closed after the test, or
 * through `closeWith` (a concurrent test's own onTestFinished: afterEach would close its neighbour's too).
 */
function replicas(options: { cappedAtOne?: boolean; closeWith?: (close: () => Promise<void>) => void } = {}) {
  const closeWith = options.closeWith ?? ((close) => void closers.push(close));
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const limits = defaultConfig({ limits: { 'turns-in-flight-per-client': 1 } }).limits;
  const replica = (upstream: StubUpstream, writes?: () => Promise<void>) => {
    const opened = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 100 });
    // Closed once: a store whose writes are held waits out the writer's stop bound (5 s) at each close, and die() closed it.
    let closing: Promise<void> | undefined;
    const store: typeof opened = { ...opened, close: () => (closing ??= opened.close()) };
    const registry: TaskRegistry = writes ? { ...store, applyAll: async (...args) => (await writes(), store.applyAll(...args)) } : store;
    const lanes = createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: LEASE_MS });
    const slots = options.cappedAtOne
      ? createRedisTurnSlots(limits, { url: REDIS_URL, prefix, leaseMs: LEASE_MS, answerWithinMs: 2_000 })
      : undefined;
    closeWith(() => store.close());
    closeWith(() => lanes.close());
    closeWith(async () => slots?.close());
    const gateway = createGateway(upstream, { registry, lanes, upstreamName: 'up', ...(slots ? { turnLimits: { slots } } : {}) });
    return { gateway, lanes, slots, registry: store };
  };
  /** Killed: no renewal, no release, no more writes; dead a while, its leases run down past what a renewal would have left. */
  async function die(dying: ReturnType<typeof replica>): Promise<void> {
    await dying.lanes.close();
    await dying.slots?.close();
    await dying.registry.close();
    for (const key of await admin.keys(`${prefix}lane:*`)) await admin.pexpire(key, LEASE_MS / 2);
    const [seconds] = await admin.time();
    for (const key of await admin.keys(`${prefix}turns:*`)) {
      for (const member of await admin.zrange(key, 0, -1)) await admin.zadd(key, 'XX', Number(seconds) * 1000 + LEASE_MS / 2, member);
    }
  }
  const laneValue = () => admin.keys(`${prefix}lane:*`).then((keys) => (keys[0] ? admin.get(keys[0]) : null));
  return { replica, die, laneValue };
}

/** Replica A streams a turn of task T in context C, then dies mid-turn: its lane is never renewed nor released. */
async function replicaDiedMidTurn(upstreamB: StubUpstream) {
  const { replica, die, laneValue } = replicas();
  const feed = new Feed().push(taskFrame('T', 'C'));
  const a = replica(stubUpstream({ sendStreamingMessage: () => feed.stream() }));
  const b = replica(upstreamB);
  const stream = a.gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
  await stream.next();
  // The turn's lane names its task as running.
  await expect.poll(laneValue).toMatch(/\|\|T$/);
  // Its stream is never pulled again.
  await die(a);
  return b.gateway;
}

/** An agent whose GetTask of T says `state()`, and whose SendMessage completes the message's task (T2 when new). */
const upstreamSaying = (state: () => TaskState) =>
  stubUpstream({
    getTask: async () => finishedTask('T', 'C', state()),
    sendMessage: async (request) => ({
      task: finishedTask(request.message.taskId ?? 'T2', request.message.contextId ?? 'C', 'TASK_STATE_COMPLETED'),
    }),
  });

/** A first turn of T in C on `a`'s gateway, streamed to its end: the agent asks a question (T recorded input-required). */
async function askedOnce(a: ReturnType<ReturnType<typeof replicas>['replica']>, feed: Feed): Promise<void> {
  feed.push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED', 'which region?')).end();
  for await (const _ of a.gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
  expect((await a.registry.get('T', ALICE.principal))?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
}

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

  it('frees the context once the registry records the task waiting for input: the agent asked its question, the turn is over', async () => {
    const upstreamB = upstreamSaying(() => 'TASK_STATE_INPUT_REQUIRED');
    const b = await replicaDiedMidTurn(upstreamB);
    expect((await b.getTask({ id: 'T' }, ALICE)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await expect(b.sendMessage({ message: userMessage({ contextId: 'C', taskId: 'T', text: 'eu-west' }) }, ALICE)).resolves.toMatchObject({
      task: { id: 'T', status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });
});

describe('a replica that died during a follow-up', () => {
  /** Who refuses B's message while A's turn holds its hold: the context's lane, or (capped) the client's one slot, for any context. */
  const REFUSED_BY = [
    ['the context busy', { cappedAtOne: false, contextId: 'C', refusal: BUSY }],
    ['its client at its cap', { cappedAtOne: true, contextId: 'C2', refusal: [-32000, AT_CAP] }],
  ] as const;

  it.each(REFUSED_BY)(
    'blocking: keeps %s while the registry still holds the question, and not once it records the task completed',
    async (_, { cappedAtOne, contextId, refusal }) => {
      const { replica, die, laneValue } = replicas({ cappedAtOne });
      const feed = new Feed();
      const upstreamA = stubUpstream({ sendStreamingMessage: () => feed.stream(), sendMessage: () => new Promise(() => undefined) });
      const a = replica(upstreamA);
      let agentSays: TaskState = 'TASK_STATE_WORKING';
      const b = replica(upstreamSaying(() => agentSays));
      await askedOnce(a, feed);

      // The answer to the question, sent blocking: the agent never answers before A dies.
      void a.gateway.sendMessage({ message: userMessage({ contextId: 'C', taskId: 'T', text: 'eu-west' }) }, ALICE);
      await expect.poll(() => upstreamA.calls.includes('sendMessage')).toBe(true);
      expect(await laneValue()).not.toBeNull();
      await die(a);

      const refused = await rejection(b.gateway.sendMessage({ message: userMessage({ contextId }) }, ALICE));
      expect([refused.code, refused.message]).toEqual(refusal);
      agentSays = 'TASK_STATE_COMPLETED';
      expect((await b.gateway.getTask({ id: 'T' }, ALICE)).status.state).toBe('TASK_STATE_COMPLETED');
      await expect(b.gateway.sendMessage({ message: userMessage({ contextId }) }, ALICE)).resolves.toMatchObject({
        task: { id: 'T2', contextId, status: { state: 'TASK_STATE_COMPLETED' } },
      });
    },
  );

  // Side by side: each closes A's store once, waiting out the writer's stop bound for the writes held.
  it.concurrent.for(REFUSED_BY)(
    'streaming: keeps %s while the turn’s resumption is not yet recorded (the registry still holds the question)',
    async ([, { cappedAtOne, contextId, refusal }], { expect, onTestFinished }) => {
      const { replica, die } = replicas({ cappedAtOne, closeWith: (close) => onTestFinished(close) });
      const first = new Feed();
      const followUp = new Feed();
      const feeds = [first, followUp];
      let writesHeld = false;
      // Once held, A's registry writes never land: A dies before they do.
      const a = replica(stubUpstream({ sendStreamingMessage: () => feeds.shift()!.stream() }), () =>
        writesHeld ? new Promise(() => undefined) : Promise.resolve(),
      );
      const b = replica(upstreamSaying(() => 'TASK_STATE_WORKING'));
      await askedOnce(a, first);

      writesHeld = true;
      followUp.push(statusFrame('T', 'C', 'TASK_STATE_WORKING'));
      const stream = a.gateway
        .sendStreamingMessage({ message: userMessage({ contextId: 'C', taskId: 'T', text: 'eu-west' }) }, ALICE)
        [Symbol.asyncIterator]();
      // The stream opens with the task (stream-opening.ts), the agent's update next.
      expect((await stream.next()).value).toMatchObject({ task: { id: 'T', status: { state: 'TASK_STATE_SUBMITTED' } } });
      expect((await stream.next()).value).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
      await die(a);

      expect((await b.registry.get('T', ALICE.principal))?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const refused = await rejection(b.gateway.sendMessage({ message: userMessage({ contextId }) }, ALICE));
      expect([refused.code, refused.message]).toEqual(refusal);
    },
  );
});

describe('a replica that died mid-turn, its client capped at one turn in flight', () => {
  // A streamed answer comes as many working updates: the slot names the turn's task through all of them.
  it.each([
    ['its task only', 0],
    ['three working updates after it', 3],
  ])(
    'whose stream sent %s: refuses the client’s turns elsewhere while the registry records the turn working, and not once it records it completed',
    async (_, workingUpdates) => {
      const { replica, die, laneValue } = replicas({ cappedAtOne: true });
      const feed = new Feed().push(taskFrame('T', 'C'));
      const a = replica(stubUpstream({ sendStreamingMessage: () => feed.stream() }));
      let agentSays: TaskState = 'TASK_STATE_WORKING';
      const b = replica(upstreamSaying(() => agentSays));
      const stream = a.gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
      await stream.next();
      // The turn's lane names its task, and its slot with it (both once the registry records the turn's task).
      await expect.poll(laneValue).toMatch(/\|\|T$/);
      for (let word = 1; word <= workingUpdates; word++) {
        feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', `word ${word}`));
        await stream.next();
      }
      await die(a);

      expect((await rejection(b.gateway.sendMessage({ message: userMessage({ contextId: 'C2' }) }, ALICE))).message).toBe(AT_CAP);
      agentSays = 'TASK_STATE_COMPLETED';
      expect((await b.gateway.getTask({ id: 'T' }, ALICE)).status.state).toBe('TASK_STATE_COMPLETED');
      await expect(b.gateway.sendMessage({ message: userMessage({ contextId: 'C2' }) }, ALICE)).resolves.toMatchObject({
        task: { id: 'T2', contextId: 'C2', status: { state: 'TASK_STATE_COMPLETED' } },
      });
    },
  );
});

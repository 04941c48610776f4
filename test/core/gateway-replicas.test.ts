/** Two gateway replicas sharing one Redis (lanes and registry): one turn per context between them. */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, beforeAll } from 'vitest';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { createGateway } from '../../src/core/gateway.js';
import type { UnknownTasks } from '../../src/core/task-scope.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { Message, Task } from '../../src/model/index.js';
import { ctxOf, Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage, type StubUpstream } from '../support/gateway-stubs.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:replicas:${randomUUID()}:`;
const ALICE = ctxOf('basic:alice');
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

afterAll(async () => {
  const admin = new Redis(REDIS_URL);
  const keys = await admin.keys(`${RUN_PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

interface ReplicaOptions {
  unknownTasks?: UnknownTasks;
  /** How much later than asked each of its registry writes lands in Redis (a busy Redis, a slow link). */
  writeLagMs?: number;
}

/** A replica gateway over its own upstream stub, with its own Redis connections, on `prefix`. */
function replicaOn(prefix: string, upstream: StubUpstream, options: ReplicaOptions = {}) {
  const redis = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 100 });
  const { writeLagMs } = options;
  const registry =
    writeLagMs === undefined
      ? redis
      : { ...redis, applyAll: (...args: Parameters<typeof redis.applyAll>) => sleep(writeLagMs).then(() => redis.applyAll(...args)) };
  const lanes = createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 10_000 });
  closers.push(
    () => redis.close(),
    () => lanes.close(),
  );
  return createGateway(upstream, { registry, lanes, upstreamName: 'up', ...(options.unknownTasks ? { unknownTasks: options.unknownTasks } : {}) });
}

const newPrefix = () => `${RUN_PREFIX}${randomUUID()}:`;

/** Replica gateways over their own upstream stubs, on one prefix. */
function replicas(...upstreams: StubUpstream[]) {
  const prefix = newPrefix();
  return upstreams.map((upstream) => replicaOn(prefix, upstream));
}

const blockingAnswer = (taskId: string) => async () => ({ task: finishedTask(taskId, 'C') });

describe('gateway replicas sharing Redis lanes', () => {
  it('rejects on B while a stream on A holds the context, and accepts once it ended', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const upstreamA = stubUpstream({ sendStreamingMessage: () => feed.stream() });
    const upstreamB = stubUpstream({ sendMessage: blockingAnswer('T2') });
    const [a, b] = replicas(upstreamA, upstreamB);

    const stream = a!.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    expect((await stream.next()).value).toEqual(taskFrame('T', 'C'));
    const busy = await rejection(b!.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
    expect([busy.code, busy.message]).toEqual([-32602, 'Context C already has a turn in progress; retry when it has finished']);
    expect(upstreamB.calls).toEqual([]);

    feed.push(statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    expect((await stream.next()).done).toBe(false);
    expect((await stream.next()).done).toBe(true);
    // No wait: the lane is free in Redis by the time A's stream has ended.
    await expect(b!.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({ task: { id: 'T2' } });
    expect(upstreamB.calls).toEqual(['sendMessage']);
  });

  it('a turn A answered with returnImmediately keeps its context busy on B while the agent says it runs', async () => {
    let upstreamState: 'TASK_STATE_WORKING' | 'TASK_STATE_INPUT_REQUIRED' = 'TASK_STATE_WORKING';
    const upstreamA = stubUpstream({ sendMessage: async () => ({ task: { ...finishedTask('T', 'C', 'TASK_STATE_SUBMITTED') } }) });
    const upstreamB = stubUpstream({
      sendMessage: blockingAnswer('T2'),
      getTask: async () => finishedTask('T', 'C', upstreamState),
    });
    const [a, b] = replicas(upstreamA, upstreamB);
    await a!.sendMessage({ message: userMessage({ contextId: 'C' }), configuration: { returnImmediately: true } }, ALICE);

    const busy = await rejection(b!.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
    expect([busy.code, busy.message]).toEqual([-32602, 'Context C already has a turn in progress; retry when it has finished']);
    expect(upstreamB.calls).toEqual(['getTask']);

    // Asking the agent is recorded: once it says the turn ended, the next message enters.
    upstreamState = 'TASK_STATE_INPUT_REQUIRED';
    await expect(b!.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({ task: { id: 'T2' } });
    expect(upstreamB.calls).toEqual(['getTask', 'getTask', 'sendMessage']);
  });

  it('an agent that cannot say whether a turn runs does not keep its context busy', async () => {
    const upstreamA = stubUpstream({ sendMessage: async () => ({ task: finishedTask('T', 'C', 'TASK_STATE_WORKING') }) });
    const upstreamB = stubUpstream({
      sendMessage: blockingAnswer('T2'),
      getTask: async () => {
        throw new Error('the agent has no GetTask');
      },
    });
    const [a, b] = replicas(upstreamA, upstreamB);
    await a!.sendMessage({ message: userMessage({ contextId: 'C' }), configuration: { returnImmediately: true } }, ALICE);
    await expect(b!.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({ task: { id: 'T2' } });
    expect(upstreamB.calls).toEqual(['getTask', 'sendMessage']);
  });

  it('holds a context the upstream created on A before B can learn of it', async () => {
    const feed = new Feed().push(taskFrame('T', 'NEW'));
    const [a, b] = replicas(stubUpstream({ sendStreamingMessage: () => feed.stream() }), stubUpstream({ sendMessage: blockingAnswer('T2') }));
    const stream = a!.sendStreamingMessage({ message: userMessage() }, ALICE)[Symbol.asyncIterator]();
    await stream.next();
    expect((await rejection(b!.sendMessage({ message: userMessage({ contextId: 'NEW' }) }, ALICE))).code).toBe(-32602);
    await stream.return?.();
    await expect(b!.sendMessage({ message: userMessage({ contextId: 'NEW' }) }, ALICE)).resolves.toBeDefined();
  });

  it("knows on B a task whose id A streamed, however late A's registry writes land, and cancels it there", async () => {
    const feed = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    const upstreamB = stubUpstream({ cancelTask: async () => finishedTask('T', 'C', 'TASK_STATE_CANCELED') });
    // Callers hold credentials: a task the registry does not know is nobody's to reach (task-scope.ts).
    const prefix = newPrefix();
    const a = replicaOn(prefix, stubUpstream({ sendStreamingMessage: () => feed.stream() }), { unknownTasks: 'not-found', writeLagMs: 100 });
    const b = replicaOn(prefix, upstreamB, { unknownTasks: 'not-found' });

    const stream = a.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    expect((await stream.next()).value).toMatchObject({ task: { id: 'T' } });
    // The caller takes the id it was just given to the other replica at once.
    await expect(b.cancelTask({ id: 'T' }, ALICE)).resolves.toMatchObject({ id: 'T', status: { state: 'TASK_STATE_CANCELED' } });
    expect(upstreamB.calls).toEqual(['cancelTask']);
    await stream.return?.();
  });

  it("lets a permission answer reach B while A's paused turn holds the lane", async () => {
    const turn = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    const answer = new Feed().push(statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    const [a, b] = replicas(
      stubUpstream({ sendStreamingMessage: () => turn.stream() }),
      stubUpstream({ sendStreamingMessage: () => answer.stream() }),
    );
    const stream = a!.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    await stream.next();
    await stream.next(); // the permission prompt: INPUT_REQUIRED while A's stream stays open
    await a!.settled('T');

    const fresh: Message = userMessage({ contextId: 'C' });
    expect((await rejection(b!.sendStreamingMessage({ message: fresh }, ALICE)[Symbol.asyncIterator]().next())).code).toBe(-32602);
    const answering = b!.sendStreamingMessage({ message: userMessage({ taskId: 'T', contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    // The stream opens with the task (stream-opening.ts), the agent's update next.
    expect((await answering.next()).value).toMatchObject({ task: { id: 'T', status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect((await answering.next()).value).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    await answering.return?.();
    await stream.return?.();
  });
});

describe('gateway replicas sharing a Redis registry: tenants', () => {
  it('keep a task to the tenant it was created under on every replica, and ask the agent about it there', async () => {
    const asked: Array<{ id: string; tenant?: string }> = [];
    const upstreamA = stubUpstream({ sendMessage: async () => ({ task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' } } }) });
    const upstreamB = stubUpstream({
      getTask: async ({ id, tenant }) => {
        asked.push(tenant === undefined ? { id } : { id, tenant });
        return { id, contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } };
      },
    });
    const [a, b] = replicas(upstreamA, upstreamB);
    await a!.sendMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }) }, ALICE);
    // Under another tenant, or none, the task is not there, and the agent is not asked.
    expect((await rejection(b!.getTask({ id: 'T', tenant: 'other' }, ALICE))).code).toBe(-32001);
    expect((await rejection(b!.getTask({ id: 'T' }, ALICE))).code).toBe(-32001);
    expect((await b!.listTasks({}, ALICE)).tasks).toEqual([]);
    expect(asked).toEqual([]);
    // Listed under its tenant, last seen running: the agent is asked about it in that tenant.
    const listed = await b!.listTasks({ tenant: 'acme' }, ALICE);
    expect(listed.tasks.map((task) => [task.id, task.status.state])).toEqual([['T', 'TASK_STATE_COMPLETED']]);
    expect(asked).toEqual([{ id: 'T', tenant: 'acme' }]);
  });

  it('keep a context busy on B while a turn A left running in it runs, and its tenant to itself', async () => {
    let upstreamState: Task['status']['state'] = 'TASK_STATE_WORKING';
    const asked: Array<string | undefined> = [];
    const upstreamA = stubUpstream({ sendMessage: async () => ({ task: finishedTask('T', 'C', 'TASK_STATE_WORKING') }) });
    const upstreamB = stubUpstream({
      sendMessage: blockingAnswer('T2'),
      getTask: async ({ tenant }) => {
        asked.push(tenant);
        return finishedTask('T', 'C', upstreamState);
      },
    });
    const [a, b] = replicas(upstreamA, upstreamB);
    await a!.sendMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }), configuration: { returnImmediately: true } }, ALICE);
    // Under another tenant, or none, the context is not there to continue (as another caller's), busy or not.
    for (const tenant of [{ tenant: 'other' }, {}]) {
      const foreign = await rejection(b!.sendMessage({ ...tenant, message: userMessage({ contextId: 'C' }) }, ALICE));
      expect([foreign.code, foreign.message]).toEqual([-32602, 'Context C is not available; start a new context']);
    }
    const busy = await rejection(b!.sendMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }) }, ALICE));
    expect([busy.code, busy.message]).toEqual([-32602, 'Context C already has a turn in progress; retry when it has finished']);
    // Asked in the running task's tenant, and no second turn reached the agent.
    expect(asked).toEqual(['acme']);
    expect(upstreamB.calls).toEqual(['getTask']);
    upstreamState = 'TASK_STATE_INPUT_REQUIRED';
    await expect(b!.sendMessage({ tenant: 'other', message: userMessage({ contextId: 'C' }) }, ALICE)).rejects.toMatchObject({ code: -32602 });
    await expect(b!.sendMessage({ tenant: 'acme', message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({ task: { id: 'T2' } });
  });
});

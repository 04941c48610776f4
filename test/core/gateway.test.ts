import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { A2AError, type StreamResponse } from '../../src/model/index.js';
import { IAC_CODE_SECRET_KEYS } from '../../src/upstream/iac-code/secrets.js';
import { ctxOf, Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage, type StubUpstream } from '../support/gateway-stubs.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';
import { collect } from '../support/collect.js';

const ALICE = ctxOf('basic:alice');
const BOB = ctxOf('basic:bob');

function setup(upstream: StubUpstream, options: { registry?: TaskRegistry } = {}) {
  const registry = options.registry ?? createMemoryTaskRegistry({ maxTasks: 1000, idleTtlMs: 60_000, historyLimit: 100 });
  const gateway = createGateway(upstream, { registry, upstreamName: 'up', secretKeys: IAC_CODE_SECRET_KEYS });
  return { registry, gateway };
}

/** A stream whose upstream is `feed`, with its first event already pulled (admission done). */
async function openStream(gateway: ReturnType<typeof setup>['gateway'], message: ReturnType<typeof userMessage>, ctx = ALICE) {
  const iterator = gateway.sendStreamingMessage({ message }, ctx)[Symbol.asyncIterator]();
  const first = await iterator.next();
  return { iterator, first };
}

describe('gateway: one turn per context', () => {
  it('rejects a message on a busy context while a stream runs and accepts it once the stream ended', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const upstream = stubUpstream({
      sendStreamingMessage: () => feed.stream(),
      sendMessage: async () => ({ task: finishedTask('T2', 'C') }),
    });
    const { gateway } = setup(upstream);
    const { iterator, first } = await openStream(gateway, userMessage({ contextId: 'C' }));
    expect(first.value).toEqual(taskFrame('T', 'C'));

    const busy = await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
    expect(busy.code).toBe(-32602);
    expect(busy.message).toBe('Context C already has a turn in progress; retry when it has finished');
    expect(busy.metadata).toEqual({ contextId: 'C' });
    // A follow-up naming only the task is mapped to its context.
    expect((await rejection(gateway.sendMessage({ message: userMessage({ taskId: 'T' }) }, ALICE))).code).toBe(-32602);
    expect(upstream.calls.filter((call) => call === 'sendMessage')).toHaveLength(0);

    feed.push(statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    expect((await iterator.next()).done).toBe(false);
    expect((await iterator.next()).done).toBe(true);
    await expect(gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toMatchObject({ task: { id: 'T2' } });
  });

  it('frees the lane and returns the upstream generator when the consumer stops early', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream(), sendMessage: async () => ({ task: finishedTask('T', 'C') }) });
    const { gateway } = setup(upstream);
    for await (const event of gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)) {
      expect('task' in event).toBe(true);
      break;
    }
    expect(feed.finished).toBe(true);
    expect(feed.produced).toBe(1);
    await expect(gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toBeDefined();
  });

  it('frees the lane when the upstream stream fails', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream(), sendMessage: async () => ({ task: finishedTask('T', 'C') }) });
    const { gateway } = setup(upstream);
    const { iterator } = await openStream(gateway, userMessage({ contextId: 'C' }));
    feed.fail(new Error('upstream went away'));
    await expect(iterator.next()).rejects.toThrow('upstream went away');
    await expect(gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toBeDefined();
  });

  it('ends the upstream call through every decorator when the caller aborts while a pull waits on it', async () => {
    // A surface whose client left aborts the call's signal, then returns the stream (surfaces/shared/sse.ts):
    // the abort must reach the upstream call under the whole stack, though each layer's return() is queued.
    const controller = new AbortController();
    const ctx = { principal: ALICE.principal, signal: controller.signal };
    let upstreamEnded = false;
    async function* waitsForAbort(signal: AbortSignal): AsyncGenerator<StreamResponse> {
      try {
        yield taskFrame('T', 'C');
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
      } finally {
        upstreamEnded = true;
      }
    }
    const upstream = stubUpstream({
      sendStreamingMessage: (_request, call) => waitsForAbort(call.signal),
      sendMessage: async () => ({ task: finishedTask('T', 'C') }),
    });
    const { gateway, registry } = setup(upstream);
    const { iterator } = await openStream(gateway, userMessage({ contextId: 'C' }), ctx);
    const pending = iterator.next();
    const returned = iterator.return?.();
    controller.abort(new Error('client went away'));
    await expect(pending).rejects.toThrow('client went away');
    await returned;
    expect(upstreamEnded).toBe(true);
    expect((await registry.get('T', ALICE.principal))?.id).toBe('T');
    await expect(gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)).resolves.toBeDefined();
  });

  it('takes the lane of a new context as soon as the first event names it', async () => {
    const feed = new Feed().push(taskFrame('T', 'NEW'));
    const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream() });
    const { gateway } = setup(upstream);
    const { iterator } = await openStream(gateway, userMessage());
    expect((await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'NEW' }) }, ALICE))).code).toBe(-32602);
    await iterator.return?.();
  });

  it('lets an iac-code permission answer join the paused turn whose stream is still open', async () => {
    const turn = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    const answer = new Feed().push(statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    const feeds = [turn, answer];
    const upstream = stubUpstream({ sendStreamingMessage: () => feeds.shift()!.stream() });
    const { gateway } = setup(upstream);
    const { iterator } = await openStream(gateway, userMessage({ contextId: 'C' }));
    await iterator.next(); // the permission prompt: INPUT_REQUIRED while the stream stays open

    expect((await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE))).code).toBe(-32602);
    const answering = gateway.sendStreamingMessage({ message: userMessage({ taskId: 'T', contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    expect((await answering.next()).value).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    await answering.return?.();
    await iterator.return?.();
  });
});

describe('gateway: streaming pass-through', () => {
  it('yields each event before the upstream has produced the next one', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream() });
    const { gateway } = setup(upstream);
    const iterator = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual(taskFrame('T', 'C'));
    expect(feed.produced).toBe(1);
    feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 'Hello '));
    expect((await iterator.next()).value).toMatchObject({ statusUpdate: { status: { message: { parts: [{ text: 'Hello ' }] } } } });
    expect(feed.produced).toBe(2);
    feed.end();
    expect((await iterator.next()).done).toBe(true);
  }, 2000); // a buffering relay never hands out the first event: fail fast

  it('has recorded every event, in order, when the stream ends (Redis registry)', async () => {
    await requireRedis();
    const redis = new Redis(REDIS_URL);
    const prefix = `a2a-bridge-test:${randomUUID()}:`;
    const registry = createRedisTaskRegistry({ redis, prefix, idleTtlMs: 60_000, historyLimit: 100 });
    try {
      const feed = new Feed().push(taskFrame('T', 'C'));
      for (let i = 0; i < 30; i++) feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', `chunk-${i}`));
      feed.push(statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
      feed.end();
      const { gateway } = setup(stubUpstream({ sendStreamingMessage: () => feed.stream() }), { registry });
      const events = await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
      expect(events).toHaveLength(32);
      const stored = await registry.get('T', ALICE.principal);
      expect(stored?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(stored?.history?.map((m) => m.parts[0]?.text)).toEqual(Array.from({ length: 30 }, (_, i) => `chunk-${i}`));
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('records a follow-up user message into the task history before the turn', async () => {
    const first = new Feed().push(taskFrame('T', 'C', [userMessage({ text: 'one' })]), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    first.end();
    const second = new Feed().push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 'reply'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    second.end();
    const feeds = [first, second];
    const { gateway, registry } = setup(stubUpstream({ sendStreamingMessage: () => feeds.shift()!.stream() }));
    await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C', text: 'one' }) }, ALICE));
    await collect(gateway.sendStreamingMessage({ message: userMessage({ taskId: 'T', text: 'two' }) }, ALICE));
    const stored = await registry.get('T', ALICE.principal);
    expect(stored?.history?.map((m) => m.parts[0]?.text)).toEqual(['one', 'two', 'reply']);
  });
});

describe('gateway: per-principal scoping', () => {
  it('hides a task and its context from another principal without asking the upstream', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const upstream = stubUpstream({
      sendStreamingMessage: () => feed.stream(),
      getTask: async () => finishedTask('T', 'C'),
    });
    const { gateway } = setup(upstream);
    await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
    const before = upstream.calls.length;

    const notFound = [
      gateway.getTask({ id: 'T' }, BOB),
      gateway.cancelTask({ id: 'T' }, BOB),
      gateway.sendMessage({ message: userMessage({ taskId: 'T' }) }, BOB),
      gateway
        .sendStreamingMessage({ message: userMessage({ taskId: 'T' }) }, BOB)
        [Symbol.asyncIterator]()
        .next(),
      gateway.subscribeToTask({ id: 'T' }, BOB)[Symbol.asyncIterator]().next(),
      gateway.createTaskPushNotificationConfig({ taskId: 'T', url: 'https://example.com/hook' }, BOB),
      gateway.getTaskPushNotificationConfig({ taskId: 'T', id: 'p' }, BOB),
      gateway.listTaskPushNotificationConfigs({ taskId: 'T' }, BOB),
      gateway.deleteTaskPushNotificationConfig({ taskId: 'T', id: 'p' }, BOB),
    ];
    for (const attempt of notFound) {
      const error = await rejection(attempt);
      expect(error.code).toBe(-32001);
      expect(error.message).toBe('Task T not found');
    }
    expect((await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, BOB))).code).toBe(-32602);
    expect(upstream.calls.length).toBe(before);
    expect((await gateway.listTasks({}, BOB)).tasks).toEqual([]);
    expect((await gateway.listTasks({}, ALICE)).tasks.map((t) => t.id)).toEqual(['T']);
    await expect(gateway.getTask({ id: 'T' }, ALICE)).resolves.toMatchObject({ id: 'T' });
    expect(upstream.calls.at(-1)).toBe('getTask');
  });
});

describe('gateway: task queries', () => {
  it('refuses to subscribe to an input-required task without calling the upstream, forwards a terminal one', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream() });
    const { gateway, registry } = setup(upstream);
    await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
    await registry.put(finishedTask('DONE', 'C2', 'TASK_STATE_COMPLETED'), { owner: ALICE.principal, upstream: 'up' });
    const error = await rejection(gateway.subscribeToTask({ id: 'T' }, ALICE)[Symbol.asyncIterator]().next());
    expect([error.code, error.message]).toEqual([-32001, 'Task T is not active']);
    expect(upstream.calls).not.toContain('subscribeToTask');
    await gateway
      .subscribeToTask({ id: 'DONE' }, ALICE)
      [Symbol.asyncIterator]()
      .next()
      .catch(() => undefined);
    expect(upstream.calls).toContain('subscribeToTask');
  });
});

describe('gateway: SubscribeToTask', () => {
  it("asks the upstream for the task's state: a running turn the registry calls input-required is subscribed to", async () => {
    const feed = new Feed().push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 'more'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const upstream = stubUpstream({
      getTask: async () => ({ ...finishedTask('T', 'C', 'TASK_STATE_WORKING') }),
      subscribeToTask: () => feed.stream(),
    });
    const { gateway, registry } = setup(upstream);
    await registry.put(finishedTask('T', 'C', 'TASK_STATE_INPUT_REQUIRED'), { owner: ALICE.principal, upstream: 'up' });
    const events = await collect(gateway.subscribeToTask({ id: 'T' }, ALICE));
    // The agent began with an update: the Task read just before comes first, as A2A 1.0 requires.
    expect(events.map((event) => Object.keys(event)[0])).toEqual(['task', 'statusUpdate', 'statusUpdate']);
    expect(events[0]).toEqual({ task: expect.objectContaining({ id: 'T', status: expect.objectContaining({ state: 'TASK_STATE_WORKING' }) }) });
  });

  it("a terminal task is -32004 in the agent's own words when it says -32004, else in the gateway's", async () => {
    const upstream = stubUpstream({
      getTask: async () => finishedTask('T', 'C', 'TASK_STATE_CANCELED'),
      // eslint-disable-next-line require-yield
      subscribeToTask: async function* () {
        throw new A2AError(-32001, 'Task T is not active');
      },
    });
    const { gateway } = setup(upstream);
    const error = await rejection(gateway.subscribeToTask({ id: 'T' }, ALICE)[Symbol.asyncIterator]().next());
    expect([error.code, error.message]).toEqual([-32004, 'Task T is in a terminal state and cannot be subscribed to']);

    const own = A2AError.unsupportedOperation('Task T is in a terminal state (5) and cannot be subscribed to.');
    const spec = stubUpstream({
      getTask: async () => finishedTask('T', 'C', 'TASK_STATE_CANCELED'),
      // eslint-disable-next-line require-yield
      subscribeToTask: async function* () {
        throw own;
      },
    });
    expect(await rejection(setup(spec).gateway.subscribeToTask({ id: 'T' }, ALICE)[Symbol.asyncIterator]().next())).toBe(own);
  });
});

describe('gateway: redaction of echoed secrets', () => {
  it('replaces the secrets iac-code echoes in the first Task frame, passes clean events untouched', async () => {
    const secrets = {
      cwd: '/home/user/project',
      iac_code_api_key: 'sk-live-123456789',
      alibaba_cloud_access_key_id: 'LTAI-id-value',
      alibaba_cloud_access_key_secret: 'ak-secret-value',
      alibaba_cloud_security_token: 'sts-token-value',
      alibaba_cloud_region_id: 'cn-hangzhou',
    };
    const echoed = taskFrame('T', 'C', [userMessage({ contextId: 'C', metadata: { iac_code: secrets } })]);
    const clean = statusFrame('T', 'C', 'TASK_STATE_WORKING', 'Hello ');
    const feed = new Feed().push(echoed, clean, statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const { gateway, registry } = setup(stubUpstream({ sendStreamingMessage: () => feed.stream() }));
    const events = await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C', metadata: { iac_code: secrets } }) }, ALICE));

    const first = events[0] as Extract<StreamResponse, { task: unknown }>;
    expect(first.task.history?.[0]?.metadata).toEqual({
      iac_code: {
        cwd: '/home/user/project',
        iac_code_api_key: '[REDACTED]',
        alibaba_cloud_access_key_id: '[REDACTED]',
        alibaba_cloud_access_key_secret: '[REDACTED]',
        alibaba_cloud_security_token: '[REDACTED]',
        alibaba_cloud_region_id: 'cn-hangzhou',
      },
    });
    expect(events[1]).toBe(clean);
    const everything = JSON.stringify([events, await registry.get('T', ALICE.principal)]);
    for (const value of ['sk-live-123456789', 'LTAI-id-value', 'ak-secret-value', 'sts-token-value']) expect(everything).not.toContain(value);
    // The upstream's own object was not modified.
    expect((echoed as { task: { history: Array<{ metadata: unknown }> } }).task.history[0]?.metadata).toEqual({ iac_code: secrets });
  });
});

describe('gateway: event hub', () => {
  it('fans every event of a task out to each subscriber until the turn ends', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const { gateway } = setup(stubUpstream({ sendStreamingMessage: () => feed.stream() }));
    const { iterator } = await openStream(gateway, userMessage({ contextId: 'C' }));
    const subscribers = [collect(gateway.events.subscribe('T')), collect(gateway.events.subscribe('T'))];
    expect(gateway.events.subscriberCount('T')).toBe(2);
    feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 'a'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const relayed: StreamResponse[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) relayed.push(next.value);
    const [one, two] = await Promise.all(subscribers);
    expect(one).toEqual(relayed);
    expect(two).toEqual(relayed);
    expect(relayed.map((event) => ('statusUpdate' in event ? event.statusUpdate.status.state : ''))).toEqual([
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
    expect(gateway.events.subscriberCount('T')).toBe(0);
  });
});

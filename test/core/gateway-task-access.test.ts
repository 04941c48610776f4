/**
 * Who may reach a task through the gateway core (gateway-harness.ts), and how SubscribeToTask decides
 * between the registry, the upstream and a refusal.
 */
import { describe, expect, it } from 'vitest';
import { A2AError } from '../../src/model/index.js';
import { Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { rejection } from '../support/rejection.js';
import { collect } from '../support/collect.js';
import { ALICE, BOB, setup } from './gateway-harness.js';

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

describe("gateway: an agent that answers one caller with another's task", () => {
  it('is -32006 for a blocking answer and for a stream, and nothing of that task is relayed or recorded', async () => {
    const mixedUp = new Feed().push(taskFrame('OWN', 'D'), statusFrame('T', 'C', 'TASK_STATE_COMPLETED', 'secret of alice'));
    mixedUp.end();
    const upstream = stubUpstream({
      sendMessage: async (request) => ({ task: finishedTask('T', request.message.contextId ?? 'C') }),
      sendStreamingMessage: () => mixedUp.stream(),
    });
    const { gateway, registry } = setup(upstream);
    await gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE);
    expect(await registry.ownerOf('T')).toBe(ALICE.principal);

    const blocking = await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'E' }) }, BOB));
    expect(blocking).toMatchObject({ code: -32006, message: "The upstream agent answered with another caller's task" });
    const relayed: unknown[] = [];
    const streamed = await (async () => {
      for await (const event of gateway.sendStreamingMessage({ message: userMessage({ contextId: 'D' }) }, BOB)) relayed.push(event);
    })().catch((error: unknown) => error);
    expect(streamed).toMatchObject({ code: -32006 });
    expect(relayed).toEqual([taskFrame('OWN', 'D')]);
    expect(JSON.stringify(relayed)).not.toContain('secret of alice');
    expect((await registry.get('T', ALICE.principal))?.status.message).toBeUndefined();
    expect(await registry.ownerOf('T')).toBe(ALICE.principal);
  });
});

describe('gateway: task queries', () => {
  it('answers a subscription to an input-required task with its Task alone without subscribing upstream, forwards a terminal one', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream() });
    const { gateway, registry } = setup(upstream);
    await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
    await registry.put(finishedTask('DONE', 'C2', 'TASK_STATE_COMPLETED'), { owner: ALICE.principal, upstream: 'up' });
    const events = await collect(gateway.subscribeToTask({ id: 'T' }, ALICE));
    expect(events.map((event) => ('task' in event ? [event.task.id, event.task.status.state] : event))).toEqual([['T', 'TASK_STATE_INPUT_REQUIRED']]);
    expect(upstream.calls).not.toContain('subscribeToTask');
    await gateway
      .subscribeToTask({ id: 'DONE' }, ALICE)
      [Symbol.asyncIterator]()
      .next()
      .catch(() => undefined);
    expect(upstream.calls).toContain('subscribeToTask');
  });
});

describe('gateway: SubscribeToTask of a task waiting for input', () => {
  it('follows the turn a follow-up began between reading its state and reading it whole', async () => {
    let reads = 0;
    const subscribed: string[] = [];
    const upstream = stubUpstream({
      getTask: async () => finishedTask('T', 'C', reads++ === 0 ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_WORKING'),
      async *subscribeToTask() {
        subscribed.push('T');
        yield statusFrame('T', 'C', 'TASK_STATE_WORKING', 'more');
        yield statusFrame('T', 'C', 'TASK_STATE_COMPLETED');
      },
    });
    const { gateway, registry } = setup(upstream);
    await registry.put(finishedTask('T', 'C', 'TASK_STATE_INPUT_REQUIRED'), { owner: ALICE.principal, upstream: 'up' });
    const events = await collect(gateway.subscribeToTask({ id: 'T' }, ALICE));
    expect(subscribed).toEqual(['T']);
    expect(
      events.map((event) => ('task' in event ? `task:${event.task.status.state}` : 'statusUpdate' in event ? event.statusUpdate.status.state : '?')),
    ).toEqual(['task:TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
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

/**
 * The gateway core over stub upstreams (gateway-harness.ts): one turn per context. What it relays:
 * gateway-relay.test.ts; who may see and subscribe to a task: gateway-task-access.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { GATEWAY_FAILURES, type StreamResponse } from '../../src/model/index.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { rejection } from '../support/rejection.js';
import { ALICE, openStream, setup } from './gateway-harness.js';

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
    // The stream opens with the task (stream-opening.ts), the agent's update next.
    expect((await answering.next()).value).toMatchObject({ task: { id: 'T', status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect((await answering.next()).value).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    await answering.return?.();
    await iterator.return?.();
  });

  it("lets nothing into a follow-up's own turn, though the registry still says the task waits for input", async () => {
    // The task paused at the end of its first turn; the follow-up turn into it runs, and nothing recorded that yet.
    const first = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    first.end();
    const second = new Feed();
    const feeds = [first, second];
    const upstream = stubUpstream({
      sendStreamingMessage: () => feeds.shift()!.stream(),
      sendMessage: async () => ({ task: finishedTask('T', 'C') }),
    });
    const { gateway, registry } = setup(upstream);
    const opening = await openStream(gateway, userMessage({ contextId: 'C' }));
    while (!(await opening.iterator.next()).done);
    expect((await registry.get('T', ALICE.principal))?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const followUp = gateway.sendStreamingMessage({ message: userMessage({ taskId: 'T', contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    const firstEvent = followUp.next();
    // The follow-up's turn is open at the agent before anything else is sent.
    await vi.waitFor(() => expect(upstream.calls.filter((call) => call === 'sendStreamingMessage')).toHaveLength(2));
    for (const message of [userMessage({ taskId: 'T', contextId: 'C' }), userMessage({ taskId: 'T' }), userMessage({ contextId: 'C' })]) {
      expect((await rejection(gateway.sendMessage({ message }, ALICE))).code).toBe(-32602);
    }
    // Once the turn pauses again with its stream open, an answer rides along; once it goes on, nothing more does.
    second.push(statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    await firstEvent; // the task the stream opens with (stream-opening.ts), then the pause
    await followUp.next();
    feeds.push(new Feed().push(statusFrame('T', 'C', 'TASK_STATE_WORKING')));
    const answering = gateway.sendStreamingMessage({ message: userMessage({ taskId: 'T', contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    // The stream opens with the task (stream-opening.ts), the agent's update next.
    expect((await answering.next()).value).toMatchObject({ task: { id: 'T', status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect((await answering.next()).value).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    await answering.return?.();
    second.push(statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    await followUp.next();
    expect((await rejection(gateway.sendMessage({ message: userMessage({ taskId: 'T', contextId: 'C' }) }, ALICE))).code).toBe(-32602);
    expect(upstream.calls.filter((call) => call === 'sendMessage')).toHaveLength(0);
    await followUp.return?.();
  });

  it('refuses a turn before the agent does any work while the registry is known to be out of reach, and takes it again after', async () => {
    let outOfReach = true;
    const registry = Object.assign(createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 60_000, historyLimit: 10 }), { outOfReach: () => outOfReach });
    const upstream = stubUpstream({
      sendMessage: async () => ({ task: finishedTask('T', 'C') }),
      sendStreamingMessage: () => new Feed().push(taskFrame('T', 'C')).stream(),
    });
    const { gateway } = setup(upstream, { registry });
    for (const message of [userMessage(), userMessage({ contextId: 'C' })]) {
      expect(await rejection(gateway.sendMessage({ message }, ALICE))).toMatchObject({ code: -32603, message: GATEWAY_FAILURES.registryOutOfReach });
      expect((await rejection(gateway.sendStreamingMessage({ message }, ALICE)[Symbol.asyncIterator]().next())).code).toBe(-32603);
    }
    expect(upstream.calls).toEqual([]);
    outOfReach = false;
    await expect(gateway.sendMessage({ message: userMessage() }, ALICE)).resolves.toMatchObject({ task: { id: 'T' } });
  });
});

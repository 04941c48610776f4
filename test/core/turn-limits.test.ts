/**
 * The cap on a client's turns in flight as the core applies it (core/turn-limits.ts), with upstream
 * streams the test feeds by hand: whom a turn counts for, the refusal (before the upstream is asked),
 * the slot given back exactly once on every way a turn ends, and a paused turn's answer let in at the cap.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { CallContext } from '../../src/core/agent-port.js';
import { createGateway } from '../../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { belowCap, createTurnSlots, type LocalTurnSlots, type TurnSlots } from '../../src/core/turn-limits.js';
import { A2AError, GatewayErrorCode, type StreamResponse } from '../../src/model/index.js';
import { Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage, type StubUpstream } from '../support/gateway-stubs.js';
import { rejection } from '../support/rejection.js';

const slotsFor = (limits: Record<string, unknown>): LocalTurnSlots | undefined => createTurnSlots(defaultConfig({ limits }).limits);

function caller(principal: string, client?: string): CallContext & { leave(reason?: unknown): void } {
  const controller = new AbortController();
  return { principal, ...(client ? { client } : {}), signal: controller.signal, leave: (reason) => controller.abort(reason) };
}

function setup(upstream: StubUpstream, limits: Record<string, unknown> = { 'turns-in-flight-per-client': 1 }) {
  const slots = slotsFor(limits)!;
  const refused: CallContext[] = [];
  const registry = createMemoryTaskRegistry({ maxTasks: 1000, idleTtlMs: 60_000, historyLimit: 100 });
  const gateway = createGateway(upstream, { registry, upstreamName: 'up', turnLimits: { slots, refused: (ctx) => void refused.push(ctx) } });
  return { gateway, slots, refused };
}

/** A stream of `ctx` opened (its first event pulled) on the next feed. */
async function open(gateway: ReturnType<typeof setup>['gateway'], ctx: CallContext, contextId: string) {
  const iterator = gateway.sendStreamingMessage({ message: userMessage({ contextId }) }, ctx)[Symbol.asyncIterator]();
  await iterator.next();
  return iterator;
}

/** An upstream whose every stream is a new feed (pushed to `feeds`) that opens with its task. */
function feedingUpstream(feeds: Feed[] = []) {
  let n = 0;
  const upstream = stubUpstream({
    sendStreamingMessage: (request): AsyncIterable<StreamResponse> => {
      const feed = new Feed().push(taskFrame(`T${++n}`, request.message.contextId ?? `C${n}`));
      feeds.push(feed);
      return feed.stream();
    },
    sendMessage: async (request) => ({ task: finishedTask(`S${++n}`, request.message.contextId ?? 'C') }),
  });
  return { upstream, feeds };
}

describe('the slots', () => {
  it('are off without any cap, on with the common cap or one of a name', () => {
    expect(slotsFor({})).toBeUndefined();
    expect(slotsFor({ 'turns-in-flight-by-name': { batch: 0 } })).toBeUndefined();
    const byName = slotsFor({ 'turns-in-flight-by-name': { batch: 1 } })!;
    expect(byName.capOf({ client: 'batch' })).toBe(1);
    expect(byName.capOf({ client: 'other' })).toBe(0);
    expect(byName.capOf({})).toBe(0);
  });

  it('count a name across its principals, an unnamed credential by its principal', () => {
    const slots = slotsFor({ 'turns-in-flight-per-client': 2 })!;
    const held = [slots.take(caller('p:old', 'acme')), slots.take(caller('p:new', 'acme'))];
    expect(held.every(Boolean)).toBe(true);
    expect(slots.take(caller('p:new', 'acme'))).toBeUndefined();
    expect(slots.take(caller('p:old'))).toBeDefined();
    expect(slots.inFlight({ principal: 'p:any', client: 'acme' })).toBe(2);
    expect(slots.inFlight({ principal: 'p:old' })).toBe(1);
  });

  it('give a slot back once, however often it is released, and when its caller leaves', () => {
    const slots = slotsFor({ 'turns-in-flight-per-client': 3 })!;
    const a = caller('p');
    const [first] = [slots.take(a)!, slots.take(caller('p'))!];
    first.release();
    first.release();
    expect(slots.inFlight(a)).toBe(1);
    a.leave();
    expect(slots.inFlight(a)).toBe(1);
    const leaving = caller('p');
    slots.take(leaving);
    expect(slots.inFlight(a)).toBe(2);
    leaving.leave();
    expect(slots.inFlight(a)).toBe(1);
  });

  it('tell whether a client is below its cap without taking a slot, at once from this process and through a promise from shared slots', async () => {
    const slots = slotsFor({ 'turns-in-flight-per-client': 2, 'turns-in-flight-by-name': { free: 0 } })!;
    const held = [slots.take(caller('p'))!];
    expect(belowCap(slots, caller('p'))).toBe(true);
    held.push(slots.take(caller('p'))!);
    expect(belowCap(slots, caller('p'))).toBe(false);
    expect(slots.inFlight(caller('p'))).toBe(2);
    expect(belowCap(slots, caller('q'))).toBe(true);
    expect(belowCap(slots, caller('p', 'free'))).toBe(true);
    held[0]!.release();
    expect(belowCap(slots, caller('p'))).toBe(true);
    const shared: TurnSlots = { ...slots, inFlight: async (ctx) => slots.inFlight(ctx) + 1 };
    await expect(belowCap(shared, caller('p'))).resolves.toBe(false);
    await expect(belowCap(shared, caller('q'))).resolves.toBe(true);
  });
});

describe('the core at the cap', () => {
  it('refuses the turn past the cap before the upstream is asked, blocking or streamed, and tells whoever counts', async () => {
    const { upstream } = feedingUpstream();
    const { gateway, refused } = setup(upstream);
    const alice = caller('p:alice', 'alice');
    const stream = await open(gateway, alice, 'A');
    const calls = upstream.calls.length;
    const blocking = await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'B' }) }, alice));
    const streamed = await rejection(
      gateway
        .sendStreamingMessage({ message: userMessage({ contextId: 'B' }) }, alice)
        [Symbol.asyncIterator]()
        .next(),
    );
    for (const error of [blocking, streamed]) {
      expect(error).toBeInstanceOf(A2AError);
      expect(error).toMatchObject({ code: GatewayErrorCode.TooManyTurnsInFlight, retryAfterSeconds: 5 });
      expect(error.statusInfo).toEqual({ httpStatus: 429, grpcStatus: 'RESOURCE_EXHAUSTED' });
    }
    expect(upstream.calls).toHaveLength(calls);
    expect(refused.map((ctx) => ctx.client)).toEqual(['alice', 'alice']);
    await expect(gateway.sendMessage({ message: userMessage({ contextId: 'B' }) }, caller('p:bob'))).resolves.toBeDefined();
    await stream.return?.();
  });

  it("caps a caller's SubscribeToTask as a stream (it holds an upstream connection as long), not GetTask or ListTasks", async () => {
    const { upstream: base } = feedingUpstream();
    let subscribed = 0;
    const upstream = Object.assign(base, {
      subscribeToTask: () => {
        subscribed++;
        return new Feed().push(taskFrame('T1', 'A')).stream();
      },
      getTask: async () => finishedTask('T1', 'A', 'TASK_STATE_WORKING'),
    });
    const { gateway, refused } = setup(upstream, { 'turns-in-flight-per-client': 2 });
    const alice = caller('p:alice', 'alice');
    const stream = await open(gateway, alice, 'A');
    const subscription = gateway.subscribeToTask({ id: 'T1' }, alice)[Symbol.asyncIterator]();
    await expect(subscription.next()).resolves.toMatchObject({ done: false });
    // At the cap (a turn and a subscription): the next subscription is refused as a turn is, before the agent is asked.
    const second = await rejection(gateway.subscribeToTask({ id: 'T1' }, alice)[Symbol.asyncIterator]().next());
    expect(second).toMatchObject({ code: GatewayErrorCode.TooManyTurnsInFlight, retryAfterSeconds: 5 });
    expect(second.statusInfo).toEqual({ httpStatus: 429, grpcStatus: 'RESOURCE_EXHAUSTED' });
    expect(subscribed).toBe(1);
    expect(refused.map((ctx) => ctx.client)).toEqual(['alice']);
    await expect(gateway.getTask({ id: 'T1' }, alice)).resolves.toMatchObject({ id: 'T1' });
    await expect(gateway.listTasks({}, alice)).resolves.toMatchObject({ tasks: [{ id: 'T1' }] });
    // A subscription that ends gives its slot back.
    await subscription.return?.();
    const third = gateway.subscribeToTask({ id: 'T1' }, alice)[Symbol.asyncIterator]();
    await expect(third.next()).resolves.toMatchObject({ done: false });
    await third.return?.();
    await stream.return?.();
  });

  it("does not count the gateway's own subscriptions (a push follow: ownerVouched) against the caller's cap", async () => {
    const { upstream: base } = feedingUpstream();
    const upstream = Object.assign(base, {
      subscribeToTask: () => new Feed().push(taskFrame('T1', 'A')).stream(),
      getTask: async () => finishedTask('T1', 'A', 'TASK_STATE_WORKING'),
    });
    const { gateway } = setup(upstream);
    const alice = caller('p:alice', 'alice');
    const stream = await open(gateway, alice, 'A');
    const follow = gateway.subscribeToTask({ id: 'T1' }, { ...alice, ownerVouched: true })[Symbol.asyncIterator]();
    await expect(follow.next()).resolves.toMatchObject({ done: false });
    await follow.return?.();
    await stream.return?.();
  });

  it('lets in the answer to a paused turn at the cap (its stream holds the slot), and only that', async () => {
    const turn = new Feed().push(taskFrame('T', 'C'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    const answer = new Feed().push(statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    const feeds = [turn, answer];
    const { gateway } = setup(stubUpstream({ sendStreamingMessage: () => feeds.shift()!.stream() }));
    const alice = caller('p:alice');
    const paused = await open(gateway, alice, 'C');
    await paused.next(); // the permission prompt: INPUT_REQUIRED while the stream stays open

    const refusal = await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'OTHER' }) }, alice));
    expect(refusal.code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
    const answering = gateway.sendStreamingMessage({ message: userMessage({ taskId: 'T', contextId: 'C' }) }, alice)[Symbol.asyncIterator]();
    // The stream opens with the task (stream-opening.ts), the agent's update next.
    expect((await answering.next()).value).toMatchObject({ task: { id: 'T', status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect((await answering.next()).value).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    await answering.return?.();
    await paused.return?.();
  });
});

describe('a slot given back exactly once', () => {
  const ENDINGS: Array<[string, (feed: Feed, iterator: AsyncIterator<StreamResponse>, ctx: ReturnType<typeof caller>) => Promise<unknown>]> = [
    ['the stream ends', async (feed, iterator) => (feed.end(), iterator.next())],
    ['the upstream stream fails', async (feed, iterator) => (feed.fail(new Error('upstream went away')), iterator.next().catch(() => undefined))],
    ['the reader returns it', async (_feed, iterator) => iterator.return?.()],
    // A stream whose upstream does not notice: the caller's leaving (or the drain's end) frees the slot by itself.
    ['its caller leaves', async (_feed, _iterator, ctx) => ctx.leave()],
    ['the gateway shuts down', async (_feed, _iterator, ctx) => ctx.leave(A2AError.internal('The gateway is shutting down'))],
  ];

  it.each(ENDINGS)('when %s', async (_name, end) => {
    const { upstream, feeds } = feedingUpstream();
    const { gateway, slots } = setup(upstream, { 'turns-in-flight-per-client': 2 });
    const alice = caller('p:alice');
    const first = await open(gateway, alice, 'A');
    await open(gateway, caller('p:alice'), 'B');
    await end(feeds[0]!, first, alice);
    expect(slots.inFlight(alice)).toBe(1);
    // Whatever else happens to the ended turn later counts no more.
    await first.return?.();
    alice.leave();
    expect(slots.inFlight(alice)).toBe(1);
  });

  it('when a blocking call is answered, fails, or the upstream throws before it streams', async () => {
    let fail = false;
    const upstream = stubUpstream({
      sendMessage: async () => {
        if (fail) throw A2AError.internal('upstream failed');
        return { task: finishedTask('T', 'C') };
      },
      sendStreamingMessage: () => {
        throw new Error('cannot stream');
      },
    });
    const { gateway, slots } = setup(upstream);
    const alice = caller('p:alice');
    await gateway.sendMessage({ message: userMessage({ contextId: 'A' }) }, alice);
    expect(slots.inFlight(alice)).toBe(0);
    fail = true;
    await rejection(gateway.sendMessage({ message: userMessage({ contextId: 'B' }) }, alice));
    expect(slots.inFlight(alice)).toBe(0);
    await expect(
      gateway
        .sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, alice)
        [Symbol.asyncIterator]()
        .next(),
    ).rejects.toThrow();
    expect(slots.inFlight(alice)).toBe(0);
  });
});

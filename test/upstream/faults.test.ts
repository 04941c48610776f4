import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import type { CallContext } from '../../src/core/agent-port.js';
import { A2AError, type StreamResponse } from '../../src/model/index.js';
import { createV1Upstream, type V1Upstream } from '../../src/upstream/v1/client.js';
import { startFakeIacCode, type Fault, type FakeIacCode, type FaultName } from '../support/fake-iac-code.js';
import { cardFetched } from './support.js';

// Small bounds so every fault settles fast: 300 ms to headers, 1 s per unary call.
const CONFIG = { 'headers-timeout-ms': 300, 'request-timeout-ms': 1_000, 'connect-timeout-ms': 500 };
/**
 * What "within the bound" is checked against: a fault the bounds did not end would hang until the test's own
 * time-out. The bounds fire within about a second (undici arms its timers on ~0.5 s ticks); the rest is for a
 * busy host, which can hold an answer a second and more.
 */
const SETTLED_WITHIN_MS = 5_000;
const TURN_EVENTS = 15;

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setup(config: Record<string, unknown> = CONFIG): Promise<{ fake: FakeIacCode; upstream: V1Upstream }> {
  const fake = await startFakeIacCode();
  open.push(fake);
  const upstream = createV1Upstream({ baseUrl: fake.url, config: UpstreamConfig.parse(config) });
  open.push(upstream);
  await cardFetched(upstream);
  return { fake, upstream };
}

const ctx = (signal = new AbortController().signal): CallContext => ({ principal: '', signal });
const message = (text = 'make vpc') => ({ message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text }] } });

/** Run a stream to its end, keeping what arrived before an error. */
async function drain(stream: AsyncIterable<StreamResponse>): Promise<{ events: StreamResponse[]; error?: A2AError; ms: number }> {
  const started = Date.now();
  const events: StreamResponse[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    expect(error).toBeInstanceOf(A2AError);
    return { events, error: error as A2AError, ms: Date.now() - started };
  }
  return { events, ms: Date.now() - started };
}

async function failure(promise: Promise<unknown>): Promise<{ error: A2AError; ms: number }> {
  const started = Date.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(A2AError);
  return { error: error as A2AError, ms: Date.now() - started };
}

const lastState = (events: StreamResponse[]): string | undefined => {
  const last = events.at(-1);
  return last && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined;
};

describe('unary faults', () => {
  it.each<[FaultName, number, string]>([
    ['kill-mid-stream', -32603, 'Upstream agent is unavailable'],
    ['hang-before-headers', -32603, 'Upstream agent timed out'],
    ['hang-mid-stream', -32603, 'Upstream agent timed out'],
    ['non-json', -32006, 'The upstream agent returned a response that is not JSON-RPC'],
    ['wrong-id', -32006, 'The upstream agent answered a different request'],
    ['http-500', -32006, 'The upstream agent answered HTTP 500'],
    ['invalid-result', -32006, 'The upstream agent returned an invalid SendMessage result (at task.id)'],
  ])('%s → %i within the bound', async (fault, code, text) => {
    const { fake, upstream } = await setup();
    fake.injectFault(fault);
    const { error, ms } = await failure(upstream.sendMessage(message(), ctx()));
    expect(error).toMatchObject({ code, message: text });
    expect(ms).toBeLessThan(SETTLED_WITHIN_MS);
  });

  it('internal-error: same code, message without traceback, path or token', async () => {
    const { fake, upstream } = await setup();
    fake.injectFault('internal-error');
    const { error } = await failure(upstream.getTask({ id: 'x' }, ctx()));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe('RuntimeError: failed to read [path] with Bearer [redacted]');
  });

  it('a trickled body is read whole', async () => {
    // Byte by byte takes a busy host past CONFIG's 1 s whole-call bound: not what is tested here.
    const { fake, upstream } = await setup({ ...CONFIG, 'request-timeout-ms': 30_000 });
    fake.injectFault('trickle');
    const result = await upstream.sendMessage(message(), ctx());
    expect('task' in result && result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('connection refused → -32603 unavailable', async () => {
    const { fake, upstream } = await setup();
    await fake.close();
    const { error, ms } = await failure(upstream.getTask({ id: 'x' }, ctx()));
    // Unavailable at once, not timed out at the 1 s request bound (which says so in its message).
    expect(error).toMatchObject({ code: -32603, message: 'Upstream agent is unavailable' });
    expect(ms).toBeLessThan(SETTLED_WITHIN_MS);
  });

  it('aborting ctx.signal during a hung call closes the upstream request', async () => {
    const { fake, upstream } = await setup({ ...CONFIG, 'headers-timeout-ms': 0, 'request-timeout-ms': 0 });
    fake.injectFault('hang-before-headers');
    const controller = new AbortController();
    const call = failure(upstream.getTask({ id: 'x' }, ctx(controller.signal)));
    await waitFor(() => fake.rpcRequests('GetTask').length === 1);
    controller.abort();
    expect((await call).error.code).toBe(-32603);
    expect(await fake.rpcRequests('GetTask')[0]!.closed).toBe('client-closed');
  });
});

describe('stream faults', () => {
  it.each<[Fault, number, string, number]>([
    [{ name: 'kill-mid-stream' }, -32603, 'Upstream agent is unavailable', 3],
    [{ name: 'hang-before-headers' }, -32603, 'Upstream agent timed out', 0],
    [{ name: 'non-json' }, -32006, 'The upstream agent sent a stream event that is not JSON-RPC', 0],
    [{ name: 'wrong-id' }, -32006, 'The upstream agent answered a different request', 0],
    [{ name: 'http-500' }, -32006, 'The upstream agent answered HTTP 500', 0],
    [{ name: 'internal-error' }, -32603, 'RuntimeError: failed to read [path] with Bearer [redacted]', 0],
    [{ name: 'error-event', after: 4 }, -32603, 'RuntimeError: failed to read [path] with Bearer [redacted]', 4],
  ])('%o → %i', async (fault, code, text, eventsBefore) => {
    const { fake, upstream } = await setup();
    fake.injectFault(fault);
    const { events, error, ms } = await drain(upstream.sendStreamingMessage(message(), ctx()));
    expect(error).toMatchObject({ code, message: text });
    expect(events).toHaveLength(eventsBefore);
    expect(ms).toBeLessThan(SETTLED_WITHIN_MS);
  });

  it.each<FaultName>(['trickle', 'ping', 'no-trailing-blank-line'])('%s: the whole turn arrives, last event included', async (fault) => {
    const { fake, upstream } = await setup();
    fake.injectFault(fault);
    const { events, error } = await drain(upstream.sendStreamingMessage(message(), ctx()));
    expect(error).toBeUndefined();
    expect(events).toHaveLength(TURN_EVENTS);
    expect(lastState(events)).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('a clean end before the turn is over just ends the iteration', async () => {
    const { fake, upstream } = await setup();
    fake.injectFault({ name: 'end-mid-stream', after: 5 });
    const { events, error } = await drain(upstream.sendStreamingMessage(message(), ctx()));
    expect(error).toBeUndefined();
    expect(events).toHaveLength(5);
  });

  it('a stream quiet for longer than the headers timeout is not cut', async () => {
    const { fake, upstream } = await setup({ ...CONFIG, 'headers-timeout-ms': 200 });
    // undici's header/body timers tick at ~500 ms, so a 200 ms timeout may fire as late as ~1 s:
    // the gap must outlast that for this test to catch a body timeout.
    fake.injectFault({ name: 'quiet', after: 3, ms: 1_300 });
    const { events, error, ms } = await drain(upstream.sendStreamingMessage(message(), ctx()));
    expect(error).toBeUndefined();
    expect(events).toHaveLength(TURN_EVENTS);
    expect(ms).toBeGreaterThanOrEqual(1_250);
  });

  it('a stream is not bound by request-timeout-ms', async () => {
    // CONFIG's 1 s, not less: it bounds the card's read too, which a busy host took past 200 ms. The gap outlasts
    // it, and undici's coarse ticks after it.
    const { fake, upstream } = await setup();
    fake.injectFault({ name: 'quiet', after: 2, ms: 2_000 });
    const { events, error } = await drain(upstream.sendStreamingMessage(message(), ctx()));
    expect(error).toBeUndefined();
    expect(events).toHaveLength(TURN_EVENTS);
  });
});

describe('abort propagation', () => {
  it('breaking out of the loop closes the upstream request', async () => {
    const { fake, upstream } = await setup();
    fake.injectFault({ name: 'hang-mid-stream', after: 3 });
    let seen = 0;
    for await (const event of upstream.sendStreamingMessage(message(), ctx())) {
      expect(event).toBeDefined();
      if (++seen === 2) break;
    }
    const request = fake.rpcRequests('SendStreamingMessage')[0]!;
    expect(await withTimeout(request.closed, 1_000)).toBe('client-closed');
    expect(request.closedByClient).toBe(true);
  });

  it('aborting ctx.signal mid-stream throws from the iterator and closes the upstream request', async () => {
    const { fake, upstream } = await setup();
    fake.injectFault({ name: 'hang-mid-stream', after: 3 });
    const controller = new AbortController();
    const events: StreamResponse[] = [];
    const run = drain(
      (async function* () {
        for await (const event of upstream.sendStreamingMessage(message(), ctx(controller.signal))) {
          events.push(event);
          if (events.length === 3) controller.abort();
          yield event;
        }
      })(),
    );
    const { error } = await withTimeout(run, 1_000);
    expect(error).toMatchObject({ code: -32603, message: 'The upstream call was aborted' });
    expect(await withTimeout(fake.rpcRequests('SendStreamingMessage')[0]!.closed, 1_000)).toBe('client-closed');
  });

  it('an A2AError abort reason is what the iterator throws', async () => {
    const { fake, upstream } = await setup();
    fake.injectFault({ name: 'hang-mid-stream', after: 1 });
    const controller = new AbortController();
    const reason = A2AError.internal('Turn deadline exceeded');
    const iterator = upstream.sendStreamingMessage(message(), ctx(controller.signal))[Symbol.asyncIterator]();
    await iterator.next();
    const pending = iterator.next();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

async function waitFor(predicate: () => boolean, ms = 1_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms).unref())]);
}

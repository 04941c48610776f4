import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { A2AError } from '../../src/model/index.js';
import { CallBound } from '../../src/upstream/call-bound.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { startFakeIacCode } from '../support/fake-iac-code.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const aborted = (bound: CallBound): Promise<void> => new Promise((resolve) => bound.once('abort', () => resolve()));

describe('CallBound', () => {
  it('follows the caller, with its reason, and lets go of it', async () => {
    const caller = new AbortController();
    const bound = new CallBound(caller.signal, 60_000);
    const fired = aborted(bound);
    const reason = A2AError.internal('gone');
    caller.abort(reason);
    await fired;
    expect(bound).toMatchObject({ aborted: true, reason, timedOut: false });
  });

  it('fires on its timer with a TimeoutError', async () => {
    const caller = new AbortController();
    const bound = new CallBound(caller.signal, 20);
    await aborted(bound);
    expect(bound.aborted).toBe(true);
    expect(bound.timedOut).toBe(true);
    expect((bound.reason as DOMException).name).toBe('TimeoutError');
    // The caller aborting later changes nothing.
    caller.abort();
    expect(bound.timedOut).toBe(true);
  });

  it('starts aborted when the caller already is', () => {
    const caller = new AbortController();
    caller.abort('early');
    const bound = new CallBound(caller.signal, 60_000);
    expect(bound).toMatchObject({ aborted: true, reason: 'early', timedOut: false });
  });

  it('calls each listener once and none that was removed, as undici expects of a signal', () => {
    const caller = new AbortController();
    const bound = new CallBound(caller.signal, 60_000);
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    bound.once('abort', () => calls.push('kept'));
    bound.on('abort', removed);
    bound.removeListener('abort', removed);
    caller.abort();
    caller.abort();
    expect(calls).toEqual(['kept']);
  });

  it('after clear() neither the timer nor the caller aborts it', async () => {
    const caller = new AbortController();
    const bound = new CallBound(caller.signal, 10);
    bound.clear();
    caller.abort();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(bound.aborted).toBe(false);
  });
});

describe('a bounded unary call', () => {
  it('the caller aborting a hung call ends it with the caller’s reason and closes the upstream request', async () => {
    const fake = await startFakeIacCode();
    open.push(fake);
    const upstream = createV1Upstream({ baseUrl: fake.url, config: UpstreamConfig.parse({ 'request-timeout-ms': 60_000 }) });
    open.push(upstream);
    await upstream.fetchCard();
    fake.injectFault('hang-before-headers');
    const caller = new AbortController();
    const call = upstream.getTask({ id: 'x' }, { principal: '', signal: caller.signal }).catch((error: unknown) => error);
    while (fake.rpcRequests('GetTask').length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = A2AError.internal('The gateway is shutting down');
    caller.abort(reason);
    expect(await call).toBe(reason);
    expect(await fake.rpcRequests('GetTask')[0]!.closed).toBe('client-closed');
  });
});

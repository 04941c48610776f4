import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { GATEWAY_FAILURES, type A2AError } from '../../src/model/errors.js';
import type { StreamResponse } from '../../src/model/index.js';
import { getJson } from '../../src/upstream/card-fetch.js';
import { createUpstreamPool } from '../../src/upstream/http.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { unhandledRejectionsDuring } from '../support/unhandled-rejections.js';

/**
 * A request queued behind a capped pool (`upstream.connections`) whose connections are all held by
 * streams: undici only looks at its signal once it gets a connection. The caller must be answered when
 * it gives up, and the message it gave up on must never reach the agent.
 */

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** Long past the 100-200 ms bounds below, and far less than the stream holds the only connection. */
const PROMPT_MS = 1_000;

const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER' as const, parts: [{ text }] } });

/** A one-connection pool whose connection is held by a stream that never ends until `release()`. */
async function heldPool(config: Record<string, unknown> = {}) {
  const fake = await startFakeIacCode();
  open.push(fake);
  const upstreamConfig = UpstreamConfig.parse({ connections: 1, ...config });
  const pool = createUpstreamPool(upstreamConfig);
  open.push(pool);
  // The card handed over, not fetched through the pool: a test's small bounds are for the calls below, and a
  // loaded host's stall could time the card's fetch out by them. (Such a timeout, its fetch made again at once,
  // once had undici's Agent drop the origin's pool and give the calls after it a second connection past the cap:
  // pool-connection-cap.test.ts.)
  const card: unknown = await (await fetch(`${fake.url}/.well-known/agent-card.json`)).json();
  const upstream = createV1Upstream({ baseUrl: fake.url, config: upstreamConfig, dispatcher: pool, card });
  open.push(upstream);
  fake.injectFault({ name: 'hang-mid-stream', after: 1 }, { method: 'SendStreamingMessage' });
  const holder = new AbortController();
  const stream = upstream.sendStreamingMessage(message('hold'), { principal: '', signal: holder.signal })[Symbol.asyncIterator]();
  const first = (await stream.next()).value as StreamResponse;
  expect('task' in first).toBe(true);
  const release = async (): Promise<void> => {
    holder.abort();
    await stream.return?.(undefined).catch(() => undefined);
  };
  open.push({ close: release });
  return { fake, upstream, pool, release };
}

/** How a call settled within `ms`: its error's message and when, or 'pending'. */
async function settledWithin(call: Promise<unknown>, ms: number): Promise<{ error?: string; afterMs?: number } | 'pending'> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  const settled = call.then(
    () => ({ error: 'resolved', afterMs: Date.now() - started }),
    (error: unknown) => ({ error: (error as Error).message, afterMs: Date.now() - started }),
  );
  try {
    return await Promise.race([settled, pending]);
  } finally {
    clearTimeout(timer);
  }
}

/** The texts of the SendMessage requests the agent received. */
const sentTexts = (fake: FakeIacCode): string[] =>
  fake.rpcRequests('SendMessage').map((request) => (request.body as { params: ReturnType<typeof message> }).params.message.parts[0]?.text ?? '');

describe('a request queued on a full pool', () => {
  it('ends as soon as its caller hangs up, and is never sent once the connection frees', async () => {
    const { fake, upstream, release } = await heldPool();
    const unhandled = await unhandledRejectionsDuring(async () => {
      const caller = new AbortController();
      setTimeout(() => caller.abort(), 100);
      const call = upstream.sendMessage(message('abandoned'), { principal: '', signal: caller.signal });
      const outcome = await settledWithin(call, PROMPT_MS);
      expect(outcome).toMatchObject({ error: GATEWAY_FAILURES.upstreamCallAborted });

      await release();
      // The pool serves the next caller, and the agent only ever sees that caller's message.
      const answer = await upstream.sendMessage(message('wanted'), { principal: '', signal: new AbortController().signal });
      expect(answer).toBeDefined();
      expect(sentTexts(fake)).toEqual(['wanted']);
    }, 300);
    expect(sentTexts(fake)).toEqual(['wanted']);
    expect(unhandled).toEqual([]);
  }, 10_000);

  it('ends at the request timeout, and is never sent once the connection frees', async () => {
    const { fake, upstream, release } = await heldPool({ 'request-timeout-ms': 200 });
    const unhandled = await unhandledRejectionsDuring(async () => {
      const call = upstream.sendMessage(message('timed-out'), { principal: '', signal: new AbortController().signal });
      const outcome = await settledWithin(call, PROMPT_MS);
      expect(outcome).toMatchObject({ error: GATEWAY_FAILURES.upstreamTimedOut });

      await release();
      await upstream.sendMessage(message('wanted'), { principal: '', signal: new AbortController().signal });
      expect(sentTexts(fake)).toEqual(['wanted']);
    }, 300);
    expect(unhandled).toEqual([]);
  }, 10_000);

  it('ends at upstream.queue-timeout-ms as unavailable for now, and is never sent once the connection frees', async () => {
    const { fake, upstream, release } = await heldPool({ 'queue-timeout-ms': 150 });
    const unhandled = await unhandledRejectionsDuring(async () => {
      const call = upstream.sendMessage(message('queued'), { principal: '', signal: new AbortController().signal });
      const refusal = await call.then(
        () => undefined,
        (error: unknown) => error as A2AError,
      );
      expect(refusal?.message).toBe(GATEWAY_FAILURES.upstreamBusy);
      expect(refusal?.statusInfo).toEqual({ httpStatus: 503, grpcStatus: 'UNAVAILABLE' });
      expect(refusal?.retryAfterSeconds).toBe(5);
      // Each queued call waits its own bound.
      const again = await settledWithin(
        upstream.sendMessage(message('queued again'), { principal: '', signal: new AbortController().signal }),
        PROMPT_MS,
      );
      expect(again).toMatchObject({ error: GATEWAY_FAILURES.upstreamBusy });

      await release();
      await upstream.sendMessage(message('wanted'), { principal: '', signal: new AbortController().signal });
      expect(sentTexts(fake)).toEqual(['wanted']);
    }, 300);
    expect(unhandled).toEqual([]);
  }, 10_000);

  it('is not even queued when its caller already hung up', async () => {
    const { fake, upstream, release } = await heldPool();
    const call = upstream.sendMessage(message('gone'), { principal: '', signal: AbortSignal.abort() });
    expect(await settledWithin(call, PROMPT_MS)).toMatchObject({ error: GATEWAY_FAILURES.upstreamCallAborted });
    await release();
    await upstream.sendMessage(message('wanted'), { principal: '', signal: new AbortController().signal });
    expect(sentTexts(fake)).toEqual(['wanted']);
  }, 10_000);

  it('a card read ends at its own time bound, and is never sent once the connection frees', async () => {
    const { fake, upstream, pool, release } = await heldPool();
    const cardReads = (): number => fake.requests.filter((request) => request.path === '/.well-known/agent-card.json').length;
    const before = cardReads();
    const read = getJson(`${fake.url}/.well-known/agent-card.json`, { dispatcher: pool, headers: {}, timeoutMs: 200 });
    expect(await settledWithin(read, PROMPT_MS)).toMatchObject({ error: 'The operation was aborted due to timeout' });
    await release();
    await upstream.sendMessage(message('wanted'), { principal: '', signal: new AbortController().signal });
    expect(cardReads()).toBe(before);
  }, 10_000);
});

import type { Agent, Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { GATEWAY_FAILURES } from '../../src/model/errors.js';
import type { StreamResponse } from '../../src/model/index.js';
import { getJson } from '../../src/upstream/card-fetch.js';
import { createUpstreamPool } from '../../src/upstream/http.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { startFakeIacCode } from '../support/fake-iac-code.js';
import { waitUntil } from '../support/wait-until.js';
import { countedDoor } from './agent-connections.js';

/**
 * `upstream.connections: N` protects an agent that takes N connections at most (iac-code): however the calls
 * before went (timed out, hung up on), the agent never has more than N connections from the gateway at once, and a
 * call that finds them all held waits for one (`upstream.queue-timeout-ms`) rather than opening another.
 */

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER' as const, parts: [{ text }] } });
const call = (signal = new AbortController().signal) => ({ principal: '', signal });

/** An agent behind a door that counts its connections, and the gateway's client on a one-connection pool to it. */
async function cappedAgent(config: Record<string, unknown>) {
  const fake = await startFakeIacCode();
  open.push(fake);
  const door = await countedDoor(fake.url);
  open.push(door);
  const upstreamConfig = UpstreamConfig.parse({ connections: 1, ...config });
  const pool = createUpstreamPool(upstreamConfig);
  open.push(pool);
  // The card handed over as read through the door, so that every call goes through it.
  const cardText = await (await fetch(`${fake.url}/.well-known/agent-card.json`)).text();
  const card: unknown = JSON.parse(cardText.split(fake.url).join(door.url));
  const upstream = createV1Upstream({ baseUrl: door.url, config: upstreamConfig, dispatcher: pool, card });
  open.push(upstream);
  return { fake, door, upstream, pool };
}

/** A stream's first event, once it has reached the agent (it then holds its connection until its caller hangs up). */
async function opened(stream: AsyncIterable<StreamResponse>): Promise<AsyncIterator<StreamResponse>> {
  const events = stream[Symbol.asyncIterator]();
  const first = await events.next();
  expect('task' in (first.value as StreamResponse)).toBe(true);
  open.push({ close: async () => void (await events.return?.(undefined).catch(() => undefined)) });
  return events;
}

/** The calls the pool holds: running on its connections, or waiting for one. */
const callsHeld = (pool: Dispatcher): number => Object.values((pool as Agent).stats).reduce((sum, stats) => sum + stats.size, 0);

/** How a stream's opening ends: its error's message, or 'answered' when it reached the agent. */
const outcome = (stream: AsyncIterable<StreamResponse>): Promise<string> => {
  const events = stream[Symbol.asyncIterator]();
  open.push({ close: async () => void (await events.return?.(undefined).catch(() => undefined)) });
  return events.next().then(
    () => 'answered',
    (error: unknown) => (error as Error).message,
  );
};

describe('upstream.connections', () => {
  it('still caps the agent connections after a call that waited for the only one timed out on it', async () => {
    // The stream's wait outlasts the call's time bound, even on a loaded host.
    const { fake, door, upstream } = await cappedAgent({ 'request-timeout-ms': 300, 'queue-timeout-ms': 2_000 });
    // A call the agent never answers holds the only connection until it times out; a stream waits behind it.
    fake.injectFault('hang-before-headers', { method: 'SendMessage' });
    const timedOut = upstream.sendMessage(message('unanswered'), call()).catch((error: unknown) => (error as Error).message);
    await waitUntil(async () => fake.rpcRequests('SendMessage').length === 1);
    fake.injectFault({ name: 'hang-mid-stream', after: 1 }, { method: 'SendStreamingMessage' });
    const held = opened(upstream.sendStreamingMessage(message('hold'), call()));
    expect(await timedOut).toBe(GATEWAY_FAILURES.upstreamTimedOut);
    await held;

    // The stream now holds the only connection: the next stream waits for it, and is refused when it does not free.
    const queued = await outcome(upstream.sendStreamingMessage(message('queued'), call()));
    expect({ queued, agentConnections: door.peak() }).toEqual({ queued: GATEWAY_FAILURES.upstreamBusy, agentConnections: 1 });
  }, 10_000);

  it('still caps the agent connections after a read of its card timed out and was made again at once', async () => {
    const { fake, door, upstream, pool } = await cappedAgent({ 'queue-timeout-ms': 1_000 });
    fake.injectFault('hang-before-headers', { route: 'card' });
    const read = (timeoutMs: number) => getJson(`${door.url}/.well-known/agent-card.json`, { dispatcher: pool, headers: {}, timeoutMs });
    expect((await read(200).catch(() => read(5_000))).status).toBe(200);
    fake.injectFault({ name: 'hang-mid-stream', after: 1 }, { method: 'SendStreamingMessage' });
    await opened(upstream.sendStreamingMessage(message('hold'), call()));

    const queued = await outcome(upstream.sendStreamingMessage(message('queued'), call()));
    expect({ queued, agentConnections: door.peak() }).toEqual({ queued: GATEWAY_FAILURES.upstreamBusy, agentConnections: 1 });
  }, 10_000);

  it('still caps the agent connections after a stream that held the only one was hung up on', async () => {
    const { fake, door, upstream, pool } = await cappedAgent({ 'queue-timeout-ms': 1_000 });
    fake.injectFault({ name: 'hang-mid-stream', after: 1 }, { method: 'SendStreamingMessage', times: 2 });
    const first = new AbortController();
    await opened(upstream.sendStreamingMessage(message('first'), call(first.signal)));
    // A second stream waits for the connection; its caller's hang-up frees it for that one.
    const second = opened(upstream.sendStreamingMessage(message('second'), call()));
    await waitUntil(async () => callsHeld(pool) === 2);
    first.abort();
    await second;

    const queued = await outcome(upstream.sendStreamingMessage(message('queued'), call()));
    expect({ queued, agentConnections: door.peak() }).toEqual({ queued: GATEWAY_FAILURES.upstreamBusy, agentConnections: 1 });
  }, 10_000);
});

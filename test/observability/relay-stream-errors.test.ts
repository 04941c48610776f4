/**
 * A stream the facade relays to a 0.2.5 agent (`bailian.profile: a2a-0.2.5`) that carries the agent's JSON-RPC error
 * frame is counted by that error, as a relayed unary call's error is: a2a_bridge_requests_total
 * `outcome="error", error_code="<code>"` and a2a_bridge_upstream_requests_total `outcome="error"`, once the stream ended.
 * Before, both counted it `ok` when its headers went out. The frames still reach the caller as they came, the first one
 * before the agent sends the next; so does a stream the agent compressed (gzip) though the relay did not ask it to,
 * which is scanned decoded (before, it was not read, and counted `ok`). The agents are a real a2a-js 0.2.5 server and,
 * for the timing and the compression, hand-written ones.
 */
import { request } from 'node:http';
import { createGzip, gzipSync } from 'node:zlib';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkParams } from '../support/facade.js';
import { errorFrame, frame, startFakeV025, type FakeV025 } from '../support/fake-v025.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value, type Sample } from '../support/prometheus.js';
import { startSdkV025Agent, type RunningSdkV025Agent } from '../support/sdk-v025-agent.js';
import { waitUntil } from '../support/wait-until.js';

const RELAYED = { profile: 'a2a-0.2.5' };

/** What the samples at `url` gained since `before`, by name and labels. */
async function gainedSince(url: string, before: Sample[]) {
  const after = await scrape(url);
  return (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
}

/** The stream's raw frames, read whole. */
async function streamFrames(url: string, method: string, params: unknown): Promise<string[]> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'relayed', method, params });
  const answer = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return (await answer.text()).split('\n\n').filter((text) => text.trim() !== '');
}

describe('a real 0.2.5 agent ending a stream with its JSON-RPC error', () => {
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  beforeAll(async () => {
    agent = await startSdkV025Agent();
    gateway = await startTestGateway({ bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('tasks/resubscribe of an unknown task: the caller reads -32001; counted -32001 and an upstream error, not ok', async () => {
    const before = await scrape(gateway.url);
    const frames = await streamFrames(gateway.url, 'tasks/resubscribe', { id: 'no-such-task' });
    expect(frames.at(-1)).toContain('"code":-32001');
    await waitUntil(async () => (await gainedSince(gateway.url, before))('a2a_bridge_requests_total', { method: 'tasks/resubscribe' }) > 0);
    const counted = await gainedSince(gateway.url, before);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'tasks/resubscribe', outcome: 'error', error_code: '-32001' })).toBe(1);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'tasks/resubscribe', outcome: 'ok' })).toBe(0);
    expect(counted('a2a_bridge_upstream_requests_total', { method: 'tasks/resubscribe', outcome: 'error' })).toBe(1);
    expect(counted('a2a_bridge_upstream_requests_total', { method: 'tasks/resubscribe', outcome: 'ok' })).toBe(0);
  });

  it('a stream that ends well is still ok everywhere', async () => {
    const before = await scrape(gateway.url);
    for await (const _event of new A2AClient(gateway.url).sendMessageStream(sdkParams('hello'))) void _event;
    await waitUntil(async () => (await gainedSince(gateway.url, before))('a2a_bridge_requests_total', { method: 'message/stream' }) > 0);
    const counted = await gainedSince(gateway.url, before);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'message/stream', outcome: 'ok', error_code: '' })).toBe(1);
    expect(counted('a2a_bridge_upstream_requests_total', { method: 'message/stream', outcome: 'ok' })).toBe(1);
  });
});

describe('an agent whose error frame comes after a pause', () => {
  let agent: FakeV025;
  let gateway: TestGateway;
  let release: () => void = () => undefined;
  beforeAll(async () => {
    agent = await startFakeV025({
      rpc: {
        'message/stream': (call, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(frame(call, { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'working' } }));
          release = () => res.end(errorFrame(call, { code: -32603, message: 'the agent broke' }));
        },
      },
    });
    gateway = await startTestGateway({ bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('its first frame reaches the caller before the error exists; the stream is counted by the error at its end', async () => {
    const before = await scrape(gateway.url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'paused', method: 'message/stream', params: sdkParams('hello') });
    const answer = await fetch(`${gateway.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reader = answer.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"state":"working"');
    release();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += new TextDecoder().decode(next.value);
    expect(rest).toContain('"code":-32603');
    await waitUntil(async () => (await gainedSince(gateway.url, before))('a2a_bridge_requests_total', { method: 'message/stream' }) > 0);
    const counted = await gainedSince(gateway.url, before);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'message/stream', outcome: 'error', error_code: '-32603' })).toBe(1);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'message/stream', outcome: 'ok' })).toBe(0);
    expect(counted('a2a_bridge_upstream_requests_total', { method: 'message/stream', outcome: 'error' })).toBe(1);
  });
});

describe('an agent that compresses its stream unasked', () => {
  let agent: FakeV025;
  let gateway: TestGateway;
  let sent = '';
  beforeAll(async () => {
    agent = await startFakeV025({
      rpc: {
        'message/stream': (call, res) => {
          sent =
            frame(call, { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'working' } }) +
            errorFrame(call, { code: -32603, message: 'the agent broke' });
          res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
          res.end(gzipSync(sent));
        },
        // One event, flushed, then silence: the relay cuts the stream.
        'tasks/resubscribe': (call, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
          const gzip = createGzip();
          gzip.on('data', (bytes: Buffer) => res.write(bytes));
          gzip.write(frame(call, { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'working' } }));
          gzip.flush();
        },
      },
    });
    gateway = await startTestGateway({ bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url, 'stream-idle-timeout-ms': 300 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('the caller reads its bytes as they came (gzip); the stream is counted by its error event', async () => {
    const before = await scrape(gateway.url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'gzipped', method: 'message/stream', params: sdkParams('hello') });
    const answer = await fetch(`${gateway.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(answer.headers.get('content-encoding')).toBe('gzip');
    // fetch undoes the gzip: the agent's text, whole.
    expect(await answer.text()).toBe(sent);
    await waitUntil(async () => (await gainedSince(gateway.url, before))('a2a_bridge_requests_total', { method: 'message/stream' }) > 0);
    const counted = await gainedSince(gateway.url, before);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'message/stream', outcome: 'error', error_code: '-32603' })).toBe(1);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'message/stream', outcome: 'ok' })).toBe(0);
    expect(counted('a2a_bridge_upstream_requests_total', { method: 'message/stream', outcome: 'error' })).toBe(1);
  });

  it("one the relay cuts (the agent quiet) is counted by the relay's cut, which the scan cannot decode", async () => {
    const before = await scrape(gateway.url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'gzipped-cut', method: 'tasks/resubscribe', params: { id: 't-1' } });
    // Read raw, to its end: the relay's frame follows the gzip bytes uncompressed, on which fetch's gunzip never ends.
    const encoding = await new Promise((resolve, reject) => {
      const sent = request(`${gateway.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (answer) => {
        answer
          .resume()
          .on('end', () => resolve(answer.headers['content-encoding']))
          .on('error', reject);
      });
      sent.on('error', reject).end(body);
    });
    expect(encoding).toBe('gzip');
    await waitUntil(async () => (await gainedSince(gateway.url, before))('a2a_bridge_requests_total', { method: 'tasks/resubscribe' }) > 0);
    const counted = await gainedSince(gateway.url, before);
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method: 'tasks/resubscribe', outcome: 'error', error_code: '-32603' })).toBe(1);
    expect(counted('a2a_bridge_upstream_requests_total', { method: 'tasks/resubscribe', outcome: 'error' })).toBe(1);
  });
});

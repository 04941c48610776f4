import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { connectGrpc } from '../e2e/grpc/grpc-client.js';
import { parse, scrape, value, type Sample } from '../support/prometheus.js';
import { sendRequest } from '../support/sdk-v1-client.js';
import { v025Request } from '../support/facade.js';

const v1 = (method: string, params: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
});
const v025 = v025Request;
const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

describe('GET /metrics after real calls on both surfaces', () => {
  let gateway: RunningGateway;
  let dir: string;
  let samples: Sample[];
  const taskIds: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-metrics-'));
    gateway = await startGateway(defaultConfig({ port: 0, 'push-notifications': true, 'persistence-dir': dir }), createLogger('silent'));
    const post = (init: RequestInit) => fetch(gateway.url, init);
    const sent = (await (await post(v1('SendMessage', message('one')))).json()) as { result: { task: { id: string } } };
    taskIds.push(sent.result.task.id);
    await (await post(v1('SendStreamingMessage', message('two')))).text();
    await (await post(v1('GetTask', { id: 'no-such-task-0b9f' }))).json();
    await (await post(v1(`Bogus${crypto.randomUUID().slice(0, 8)}`, {}))).json();
    const facade = (await (await post(v025('message/send', 'three'))).json()) as { result: { id: string } };
    taskIds.push(facade.result.id);
    await (await fetch(`${gateway.url}/stream`, v025('message/stream', 'four'))).text();
    await (await fetch(`${gateway.url}/message:send`, { ...v1('', {}), body: JSON.stringify(message('five')) })).json();
    const scrape = await fetch(`${gateway.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    samples = parse(await scrape.text());
  });
  afterAll(async () => {
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts requests by surface, method, outcome and A2A error code', () => {
    const req = 'a2a_bridge_requests_total';
    expect(value(samples, req, { surface: 'jsonrpc', method: 'SendMessage', outcome: 'ok' })).toBe(1);
    expect(value(samples, req, { surface: 'jsonrpc', method: 'SendStreamingMessage', outcome: 'ok' })).toBe(1);
    expect(value(samples, req, { surface: 'jsonrpc', method: 'GetTask', outcome: 'error', error_code: '-32001' })).toBe(1);
    expect(value(samples, req, { surface: 'jsonrpc', method: 'other', outcome: 'error', error_code: '-32601' })).toBe(1);
    expect(value(samples, req, { surface: 'v025', method: 'message/send', outcome: 'ok' })).toBe(1);
    expect(value(samples, req, { surface: 'v025', method: 'message/stream', outcome: 'ok' })).toBe(1);
    expect(value(samples, req, { surface: 'rest', method: 'SendMessage', outcome: 'ok' })).toBe(1);
  });

  it('times blocking calls, the gateway-added share, upstream calls and the first event of streams', () => {
    expect(value(samples, 'a2a_bridge_request_duration_seconds_count', { surface: 'jsonrpc', method: 'SendMessage' })).toBe(1);
    expect(value(samples, 'a2a_bridge_gateway_added_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(value(samples, 'a2a_bridge_time_to_first_event_seconds_count', { surface: 'jsonrpc' })).toBe(1);
    expect(value(samples, 'a2a_bridge_time_to_first_event_seconds_count', { surface: 'v025' })).toBe(1);
    expect(value(samples, 'a2a_bridge_upstream_requests_total', { method: 'SendStreamingMessage', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(value(samples, 'a2a_bridge_upstream_duration_seconds_count')).toBeGreaterThanOrEqual(3);
  });

  it('streams: events sent by kind, none left open once they ended', () => {
    expect(value(samples, 'a2a_bridge_stream_events_total', { surface: 'jsonrpc', kind: 'status-update' })).toBeGreaterThan(0);
    expect(value(samples, 'a2a_bridge_stream_events_total', { surface: 'v025' })).toBeGreaterThan(0);
    expect(value(samples, 'a2a_bridge_open_streams')).toBe(0);
  });

  it('task states, card refreshes, push queue depth', () => {
    expect(value(samples, 'a2a_bridge_task_states_total', { state: 'input_required' })).toBeGreaterThan(0);
    expect(value(samples, 'a2a_bridge_card_refresh_total', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.name === 'a2a_bridge_push_queue_depth' && s.labels.queue === 'local-file')).toBe(true);
  });

  it('no label carries a task id, a made-up method name or any id-like value', () => {
    const labelValues = samples.flatMap((s) => Object.values(s.labels));
    for (const id of taskIds) expect(labelValues).not.toContain(id);
    expect(labelValues.filter((v) => /[0-9a-f]{8}/i.test(v) || v.startsWith('Bogus'))).toEqual([]);
  });
});

describe('metrics options', () => {
  it('a token guards the scrape; a separate metrics-port serves it off the main port', async () => {
    const guarded = await startGateway(defaultConfig({ port: 0, metrics: { token: 'scrape-me' } }), createLogger('silent'));
    try {
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } })).status).toBe(200);
      // The scheme name is case-insensitive (RFC 9110 §11.1); the token is not, nor may it be a prefix.
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'bearer scrape-me' } })).status).toBe(200);
      for (const wrong of ['Bearer scrape-m', 'Bearer scrape-me2', 'Bearer SCRAPE-ME', 'scrape-me']) {
        expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: wrong } })).status, wrong).toBe(401);
      }
    } finally {
      await guarded.close();
    }
    const probe = await startGateway(defaultConfig({ port: 0, metrics: { enabled: false } }), createLogger('silent'));
    expect((await fetch(`${probe.url}/metrics`)).status).toBe(404);
    await probe.close();
  });

  it('metrics.port: the scrape on its own port, not on the main one', async () => {
    const { createServer } = await import('node:net');
    const free = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const gateway = await startGateway(defaultConfig({ port: 0, metrics: { port: free } }), createLogger('silent'));
    try {
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);
      const scrape = await fetch(`http://127.0.0.1:${free}/metrics`);
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('a2a_bridge_requests_total');
    } finally {
      await gateway.close();
    }
  });
});

describe('gRPC calls are counted like HTTP requests', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(defaultConfig({ port: 0, grpc: { port: 0 } }), createLogger('silent'));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('by method, outcome and A2A error code, with the blocking call timed', async () => {
    const client = await connectGrpc(gateway.url);
    await client.sendMessage(sendRequest('over grpc'));
    await client.getTask({ tenant: '', id: 'no-such-task-1c2d', historyLength: undefined }).catch(() => undefined);
    const samples = await scrape(gateway.url);
    const req = 'a2a_bridge_requests_total';
    expect(value(samples, req, { surface: 'grpc', method: 'SendMessage', outcome: 'ok' })).toBe(1);
    expect(value(samples, req, { surface: 'grpc', method: 'GetTask', outcome: 'error', error_code: '-32001' })).toBe(1);
    expect(value(samples, 'a2a_bridge_request_duration_seconds_count', { surface: 'grpc', method: 'SendMessage' })).toBe(1);
  });
});

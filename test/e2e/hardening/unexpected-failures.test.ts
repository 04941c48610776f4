/**
 * A failure nothing expected (a bug), outside what the surfaces catch themselves: every caller still
 * gets its own protocol's error (-32603 "Internal error"), never the error's words, a stack or a path.
 * The fault is a tracer that throws, given to the gateway as tests give it an in-memory one: on its
 * server span's start (before the request's body is read), answered as that error; or on naming the span
 * once the handler has answered, where the handler's answer stands (the call happened: a caller told
 * -32603 would send its turn again, and a stream swapped for an error would run on upstream).
 */
import { randomUUID } from 'node:crypto';
import { SpanKind, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { expectNoLeak, openStream, rpc, userMessage } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { parseSse } from '../../surfaces/support.js';

type FaultAt = 'before' | 'after';

/** What the fault throws: words a caller must never read. */
const FAULT = () => new TypeError('sk-live-0000 leaked at /work/secret/src/tracer.ts:12');

/** A tracer whose server spans fail at `at` while armed; every other span is the SDK's own. */
function faultyTracing(at: FaultAt): { provider: TracerProvider; armed: { on: boolean } } {
  const armed = { on: true };
  const sdk = new BasicTracerProvider();
  const provider: TracerProvider = {
    getTracer(name, version) {
      const tracer = sdk.getTracer(name, version);
      const startSpan = (spanName: string, options?: SpanOptions, context?: Parameters<Tracer['startSpan']>[2]): Span => {
        const server = options?.kind === SpanKind.SERVER && armed.on;
        if (server && at === 'before') throw FAULT();
        const span = tracer.startSpan(spanName, options, context);
        if (server)
          span.updateName = () => {
            throw FAULT();
          };
        return span;
      };
      return { startSpan, startActiveSpan: tracer.startActiveSpan.bind(tracer) };
    },
  };
  return { provider, armed };
}

const V1_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const INTERNAL = { code: -32603, message: 'Internal error' };
const REST_INTERNAL = { error: { code: 500, status: 'INTERNAL', message: 'Internal error', details: [] } };
const v1Message = (text: string) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  expectNoLeak(text);
  return { status: response.status, type: response.headers.get('content-type') ?? '', text };
}

const json = (answer: { text: string }) => JSON.parse(answer.text) as unknown;
const frames = (answer: { text: string }) => parseSse(answer.text).map((frame) => ({ ...frame, data: JSON.parse(frame.data) as unknown }));

describe('a failure nothing caught, before the handler', () => {
  let iac: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    iac = await startFakeIacCode();
    gateway = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url }, 'keepalive-ms': 0 }), createLogger('silent'), {
      tracerProvider: faultyTracing('before').provider,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await iac?.close();
  });

  it('1.0 JSON-RPC: the error envelope with HTTP 200, its stream too (the body was not read: id null)', async () => {
    const answer = await post(gateway.url, { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: v1Message('hi') }, V1_HEADERS);
    expect(answer.status).toBe(200);
    expect(json(answer)).toEqual({ jsonrpc: '2.0', id: null, error: INTERNAL });
    const streamed = await post(gateway.url, { jsonrpc: '2.0', id: 8, method: 'SendStreamingMessage', params: v1Message('hi') }, V1_HEADERS);
    expect(json(streamed)).toEqual({ jsonrpc: '2.0', id: null, error: INTERNAL });
  });

  it('HTTP+JSON: google.rpc.Status with HTTP 500', async () => {
    for (const path of ['/message:send', '/message:stream']) {
      const answer = await post(`${gateway.url}${path}`, v1Message('hi'), V1_HEADERS);
      expect({ status: answer.status, body: json(answer) }).toEqual({ status: 500, body: REST_INTERNAL });
    }
  });

  it("the facade: 0.2.5's error envelope with HTTP 200, as one SSE frame for message/stream", async () => {
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'hi' }) }, { id: 'a' });
    expectNoLeak(sent.text);
    expect({ status: sent.status, type: sent.contentType, body: sent.body }).toEqual({
      status: 200,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: null, error: INTERNAL },
    });
    const streamed = await rpc(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'hi' }) }, { id: 'b' });
    expectNoLeak(streamed.text);
    expect(streamed.status).toBe(200);
    expect(streamed.contentType).toMatch(/^text\/event-stream/);
    expect(frames(streamed)).toEqual([{ data: { jsonrpc: '2.0', id: null, error: INTERNAL } }]);
  });

  it('a route outside A2A (the card): google.rpc.Status with HTTP 500', async () => {
    const response = await fetch(`${gateway.url}/.well-known/agent-card.json`);
    const text = await response.text();
    expectNoLeak(text);
    expect({ status: response.status, body: JSON.parse(text) }).toEqual({ status: 500, body: REST_INTERNAL });
  });
});

describe('a failure nothing caught, after the handler answered', () => {
  let iac: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    iac = await startFakeIacCode();
    gateway = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url }, 'keepalive-ms': 0 }), createLogger('silent'), {
      tracerProvider: faultyTracing('after').provider,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await iac?.close();
  });

  it("leaves the handler's answer as it is, on every binding", async () => {
    const sent = await post(gateway.url, { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: v1Message('hi') }, V1_HEADERS);
    expect(json(sent)).toMatchObject({ jsonrpc: '2.0', id: 7, result: { task: { status: {} } } });
    const streamed = await post(gateway.url, { jsonrpc: '2.0', id: 8, method: 'SendStreamingMessage', params: v1Message('hi') }, V1_HEADERS);
    const events = frames(streamed);
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((frame) => frame.event === undefined && (frame.data as { result?: unknown }).result !== undefined)).toBe(true);
    const rest = await post(`${gateway.url}/message:send`, v1Message('hi'), V1_HEADERS);
    expect(rest.status).toBe(200);
    expect(json(rest)).toMatchObject({ task: { status: {} } });
    const card = await fetch(`${gateway.url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
  });

  it("the facade's message/stream is served whole, and the conversation's next turn runs", async () => {
    const contextId = `ctx-${randomUUID()}`;
    const first = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'hello', contextId }) }, { id: 'one' });
    const shown = await first.rest();
    expect(shown.at(-1)?.json).toMatchObject({ id: 'one', result: { kind: 'status-update', final: true } });
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'next', contextId }) });
    expect(next.body.error).toBeUndefined();
    expect(next.body.result.contextId).toBe(contextId);
  });
});

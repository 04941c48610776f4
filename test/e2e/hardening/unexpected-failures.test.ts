/**
 * A failure nothing expected (a bug), outside what the surfaces catch themselves: every caller still
 * gets its own protocol's error (-32603 "Internal error"), never the error's words, a stack or a path.
 * The fault is a tracer that throws, given to the gateway as tests give it an in-memory one: on its
 * server span's start (before the request's body is read), answered as that error; or on naming the span
 * once the handler has answered, where the handler's answer stands (the call happened: a caller told
 * -32603 would send its turn again, and a stream swapped for an error would run on upstream). What is
 * thrown need not be an Error (`throw 'x'`, a plain object): Hono hands its error handler only an Error,
 * and @hono/node-server would answer anything else with a bare 500 of its own.
 */
import { randomUUID } from 'node:crypto';
import { SpanKind, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { createGatewayApp } from '../../../src/gateway-app.js';
import { createTaskRegistry } from '../../../src/core/task-registry/index.js';
import type { TaskRegistry } from '../../../src/core/task-registry/types.js';
import { A2AError, ErrorCode, type StreamResponse } from '../../../src/model/index.js';
import { expectNoLeak, openStream, rpc, userMessage } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { fixedCards, parseSse, StubPort } from '../../surfaces/support.js';
import { unhandledRejectionsDuring } from '../../support/unhandled-rejections.js';

type FaultAt = 'before' | 'after';

/** What the fault throws: words a caller must never read. */
const LEAK = 'sk-live-0000 leaked at /work/secret/src/tracer.ts:12';
const FAULTS: Array<[string, () => unknown]> = [
  ['an Error', () => new TypeError(LEAK)],
  ['a string', () => LEAK],
  ['a plain object', () => ({ message: LEAK, stack: `Error: ${LEAK}\n    at startSpan (/work/secret/src/tracer.ts:12:7)` })],
];
const FAULT = FAULTS[0]![1];

/** A tracer whose server spans fail at `at` while armed, with what `fault` throws; every other span is the SDK's own. */
function faultyTracing(at: FaultAt, fault = FAULT): { provider: TracerProvider; armed: { on: boolean } } {
  const armed = { on: true };
  const sdk = new BasicTracerProvider();
  const provider: TracerProvider = {
    getTracer(name, version) {
      const tracer = sdk.getTracer(name, version);
      const startSpan = (spanName: string, options?: SpanOptions, context?: Parameters<Tracer['startSpan']>[2]): Span => {
        const server = options?.kind === SpanKind.SERVER && armed.on;
        if (server && at === 'before') throw fault();
        const span = tracer.startSpan(spanName, options, context);
        if (server)
          span.updateName = () => {
            throw fault();
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

describe.each(FAULTS)('a failure nothing caught, before the handler: %s thrown', (_, fault) => {
  let iac: FakeIacCode;
  let gateway: RunningGateway;
  let unhandled: unknown[] = [];
  const noteUnhandled = (reason: unknown): void => void unhandled.push(reason);
  const tracing = faultyTracing('before', fault);
  beforeAll(async () => {
    process.on('unhandledRejection', noteUnhandled);
    iac = await startFakeIacCode();
    gateway = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url }, 'keepalive-ms': 0 }), createLogger('silent'), {
      tracerProvider: tracing.provider,
    });
  });
  afterAll(async () => {
    process.off('unhandledRejection', noteUnhandled);
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

  it('nothing is left unhandled, and the gateway serves on', async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
    unhandled = [];
    tracing.armed.on = false;
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });
});

describe.each(FAULTS)('a failure nothing caught, after the handler answered: %s thrown', (_, fault) => {
  let iac: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    iac = await startFakeIacCode();
    gateway = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url }, 'keepalive-ms': 0 }), createLogger('silent'), {
      tracerProvider: faultyTracing('after', fault).provider,
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

/** An error that no edge can render: reading its message throws the error itself, wherever that is caught. */
function unrenderable(): A2AError {
  const error = new A2AError(ErrorCode.Internal, LEAK);
  Object.defineProperty(error, 'message', {
    get() {
      throw error;
    },
  });
  return error;
}

describe('a stream whose own error rendering throws', () => {
  const registries: TaskRegistry[] = [];
  afterAll(async () => {
    for (const registry of registries.splice(0)) await registry.close();
  });

  /** The gateway in-process over a port whose streams send their first event, then fail with `unrenderable()`. */
  function gatewayOverFailingStreams() {
    const failing = (first: StreamResponse) =>
      async function* (): AsyncGenerator<StreamResponse> {
        yield first;
        throw unrenderable();
      };
    const submitted: StreamResponse = { task: { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_SUBMITTED' } } };
    const working: StreamResponse = { task: { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } };
    const port = new StubPort({
      sendStreamingMessage: () => failing(submitted)(),
      subscribeToTask: () => failing(working)(),
    });
    const config = defaultConfig({ 'keepalive-ms': 0 });
    const registry = createTaskRegistry(config);
    registries.push(registry);
    const app = createGatewayApp({ config, port, cards: fixedCards(), registry, logger: createLogger('silent') });
    const stream = async (path: string, body: unknown) => {
      const response = await app.request(`http://gw.test${path}`, { method: 'POST', headers: V1_HEADERS, body: JSON.stringify(body) });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const text = await response.text();
      expectNoLeak(text);
      return frames({ text });
    };
    return { port, stream };
  }

  it('1.0 JSON-RPC (SendStreamingMessage, SubscribeToTask): an error event with -32603 and the request id; the upstream call is aborted', async () => {
    const { port, stream } = gatewayOverFailingStreams();
    const unhandled = await unhandledRejectionsDuring(async () => {
      const sent = await stream('/', { jsonrpc: '2.0', id: 'st', method: 'SendStreamingMessage', params: v1Message('hi') });
      expect(sent.at(-1)).toEqual({ event: 'error', data: { jsonrpc: '2.0', id: 'st', error: INTERNAL } });
      expect(sent.length).toBe(2);
      expect(port.last().ctx.signal.aborted).toBe(true);
      const subscribed = await stream('/', { jsonrpc: '2.0', id: 'sub', method: 'SubscribeToTask', params: { id: 'task-1' } });
      expect(subscribed.at(-1)).toEqual({ event: 'error', data: { jsonrpc: '2.0', id: 'sub', error: INTERNAL } });
      expect(port.last().method).toBe('subscribeToTask');
      expect(port.last().ctx.signal.aborted).toBe(true);
    }, 20);
    expect(unhandled).toEqual([]);
  });

  it('HTTP+JSON (message:stream): an error event with google.rpc.Status', async () => {
    const { port, stream } = gatewayOverFailingStreams();
    const unhandled = await unhandledRejectionsDuring(async () => {
      const sent = await stream('/message:stream', v1Message('hi'));
      expect(sent.at(-1)).toEqual({ event: 'error', data: REST_INTERNAL });
      expect(port.last().ctx.signal.aborted).toBe(true);
    }, 20);
    expect(unhandled).toEqual([]);
  });

  it("the facade's message/stream: a 0.2.5 frame that ends the turn, with the request id", async () => {
    const { port, stream } = gatewayOverFailingStreams();
    const unhandled = await unhandledRejectionsDuring(async () => {
      const sent = await stream('/stream', { jsonrpc: '2.0', id: 'fs', method: 'message/stream', params: { message: userMessage({ text: 'hi' }) } });
      // As the facade ends any turn that fails once open: the failure's words (-32603's), then a failed, final status-update.
      expect(sent.slice(1).map((frame) => frame.data)).toMatchObject([
        {
          jsonrpc: '2.0',
          id: 'fs',
          result: { kind: 'artifact-update', artifact: { parts: [{ kind: 'text', text: 'Internal error' }] }, lastChunk: true },
        },
        { jsonrpc: '2.0', id: 'fs', result: { kind: 'status-update', status: { state: 'failed' }, final: true } },
      ]);
      expect(port.last().ctx.signal.aborted).toBe(true);
    }, 20);
    expect(unhandled).toEqual([]);
  });
});

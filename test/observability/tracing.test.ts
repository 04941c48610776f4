import { Metadata, credentials, makeClientConstructor, type Client } from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { A2AService, GRPC_METHODS, requestMessage } from '../../src/protocol/grpc.js';
import { startFakeIacCode } from '../support/fake-iac-code.js';
import { startSdkV025Agent, type RunningSdkV025Agent } from '../support/sdk-v025-agent.js';
import { waitUntil } from '../support/wait-until.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
/** The 1.0 surface's one credential, named: its client is on the spans of its calls. */
const TOKEN = 'trace-token';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const traceparentOf = (headers: object): string | undefined => (headers as Record<string, unknown>).traceparent as string | undefined;
const v1Call = (method: string, text: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'a2a-version': '1.0', traceparent: TRACEPARENT, authorization: `Bearer ${TOKEN}` },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
  }),
});
const v025Call = (method: string, text: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: '1',
    method,
    params: { message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text }] } },
  }),
});

/** Spans end when the stream's body is done; give the last `end()` a turn of the loop. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

/** The 1.0 upstream: records every request's headers. */
let iac: Awaited<ReturnType<typeof startFakeIacCode>>;
const proxy = {
  rpc: (method: string) => iac.rpcRequests(method),
  get exchanges() {
    return iac.requests;
  },
};
let gateway: RunningGateway;
beforeAll(async () => {
  iac = await startFakeIacCode();
  const auth = { tokens: [{ name: 'acme', token: TOKEN }] };
  gateway = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url }, grpc: { port: 0 }, auth }), createLogger('silent'), {
    tracerProvider: provider,
  });
});
afterAll(async () => {
  await gateway?.close();
  await iac?.close();
});
afterEach(() => exporter.reset());

describe('traces with an in-memory exporter', () => {
  it('1.0 SendMessage: a server span under the caller, one upstream child span, its traceparent upstream', async () => {
    const before = proxy.rpc('SendMessage').length;
    const res = await fetch(gateway.url, v1Call('SendMessage', 'trace me'));
    const { result } = (await res.json()) as { result: { task: { id: string; contextId: string } } };
    await settled();
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === 'a2a SendMessage')!;
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(server)).toBe(CALLER_SPAN);
    expect(server.attributes).toMatchObject({
      'a2a.method': 'SendMessage',
      'a2a.surface': 'jsonrpc',
      'a2a.client': 'acme',
      'a2a.task.id': result.task.id,
      'a2a.context.id': result.task.contextId,
    });
    expect(server.attributes['a2a.task.state']).toMatch(/^TASK_STATE_/);
    const client = spans.filter((s) => s.kind === SpanKind.CLIENT);
    expect(client.map((s) => s.name)).toEqual(['a2a.upstream SendMessage']);
    expect(parentOf(client[0]!)).toBe(server.spanContext().spanId);
    const upstreamCall = proxy.rpc('SendMessage')[before]!;
    expect(traceparentOf(upstreamCall.headers)).toBe(`00-${TRACE_ID}-${client[0]!.spanContext().spanId}-01`);
  });

  it('0.2.5 message/stream: the server span lasts the stream, the upstream stream is its child', async () => {
    const before = proxy.rpc('SendStreamingMessage').length;
    // The upstream pauses mid-stream: the headers are out, the stream is not over. For 1.5 s: a loaded host's stall
    // before the check outlasted a pause of 300 ms.
    const res = await fetch(`${gateway.url}/stream`, v025Call('message/stream', 'stream me [fault:quiet after=3 ms=1500]'));
    expect(exporter.getFinishedSpans().map((s) => s.name)).not.toContain('a2a message/stream');
    await res.text();
    await settled();
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === 'a2a message/stream')!;
    expect(server.attributes).toMatchObject({ 'a2a.surface': 'v025', 'a2a.method': 'message/stream' });
    // The facade has no keys here: its caller is anonymous, and unnamed.
    expect(server.attributes['a2a.client']).toBeUndefined();
    expect(parentOf(server)).toBe(CALLER_SPAN);
    const client = spans.find((s) => s.name === 'a2a.upstream SendStreamingMessage')!;
    expect(parentOf(client)).toBe(server.spanContext().spanId);
    expect(client.attributes['a2a.task.state']).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(traceparentOf(proxy.rpc('SendStreamingMessage')[before]!.headers)).toBe(`00-${TRACE_ID}-${client.spanContext().spanId}-01`);
  });

  it('an A2A error is on the span: code and error status', async () => {
    await (
      await fetch(gateway.url, {
        ...v1Call('GetTask', 'x'),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }),
      })
    ).json();
    await settled();
    const server = exporter.getFinishedSpans().find((s) => s.name === 'a2a GetTask')!;
    expect(server.attributes['a2a.error.code']).toBe(-32001);
    expect(server.status.code).toBe(2);
  });

  it('gRPC SendMessage: a server span under the caller, the upstream call its child, its traceparent upstream', async () => {
    const before = proxy.rpc('SendMessage').length;
    const Constructor = makeClientConstructor(A2AService, 'A2AService');
    const client = new Constructor(gateway.grpcAddress!, credentials.createInsecure()) as unknown as Client & {
      sendMessage: (request: unknown, metadata: Metadata, callback: (error: Error | null) => void) => void;
    };
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    metadata.set('traceparent', TRACEPARENT);
    metadata.set('authorization', `Bearer ${TOKEN}`);
    const request = requestMessage(GRPC_METHODS.sendMessage, {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'grpc traced' }] },
    });
    try {
      await new Promise<void>((resolve, reject) => client.sendMessage(request, metadata, (error) => (error ? reject(error) : resolve())));
    } finally {
      client.close();
    }
    await settled();
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === 'a2a SendMessage' && s.attributes['a2a.surface'] === 'grpc')!;
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(parentOf(server)).toBe(CALLER_SPAN);
    expect(server.attributes['a2a.task.state']).toMatch(/^TASK_STATE_/);
    expect(server.attributes['rpc.grpc.status_code']).toBe(0);
    expect(server.attributes['a2a.client']).toBe('acme');
    const upstreamCall = spans.find((s) => s.kind === SpanKind.CLIENT && parentOf(s) === server.spanContext().spanId)!;
    expect(upstreamCall.name).toBe('a2a.upstream SendMessage');
    expect(traceparentOf(proxy.rpc('SendMessage')[before]!.headers)).toBe(`00-${TRACE_ID}-${upstreamCall.spanContext().spanId}-01`);
  });

  it('a GetTask whose caller hung up is no error on its span (gRPC cancelled, JSON-RPC connection closed)', async () => {
    const Constructor = makeClientConstructor(A2AService, 'A2AService');
    const client = new Constructor(gateway.grpcAddress!, credentials.createInsecure()) as unknown as Client & {
      getTask: (request: unknown, metadata: Metadata, callback: () => void) => { cancel(): void };
    };
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    metadata.set('authorization', `Bearer ${TOKEN}`);
    // With auth on, a task is read of the agent only by the principal it belongs to.
    const sent = (await (await fetch(gateway.url, v1Call('SendMessage', 'a task to read'))).json()) as { result: { task: { id: string } } };
    const id = sent.result.task.id;
    /** Sends a GetTask the agent never answers and hangs up once the agent has it: the gateway's span of it. */
    const hungUp = async (send: () => () => void, surface: string): Promise<ReadableSpan> => {
      iac.injectFault('hang-before-headers', { method: 'GetTask' });
      const before = proxy.rpc('GetTask').length;
      const hangUp = send();
      await waitUntil(async () => proxy.rpc('GetTask').length > before);
      hangUp();
      const span = () => exporter.getFinishedSpans().find((s) => s.name === 'a2a GetTask' && s.attributes['a2a.surface'] === surface);
      await waitUntil(async () => span() !== undefined);
      return span()!;
    };
    try {
      const grpc = await hungUp(() => {
        const call = client.getTask(requestMessage(GRPC_METHODS.getTask, { id }), metadata, () => undefined);
        return () => call.cancel();
      }, 'grpc');
      expect(grpc.attributes).toMatchObject({ 'rpc.grpc.status_code': 1, 'a2a.ended': 'caller_left' });
      expect(grpc.attributes['a2a.error.code']).toBeUndefined();
      expect(grpc.status.code).toBe(SpanStatusCode.UNSET);
    } finally {
      client.close();
    }
    const jsonRpc = await hungUp(() => {
      const caller = new AbortController();
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } });
      fetch(gateway.url, { ...v1Call('GetTask', ''), body, signal: caller.signal }).catch(() => undefined);
      return () => caller.abort();
    }, 'jsonrpc');
    expect(jsonRpc.attributes).toMatchObject({ 'http.response.status_code': 499, 'a2a.ended': 'caller_left' });
    expect(jsonRpc.attributes['a2a.error.code']).toBeUndefined();
    expect(jsonRpc.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('probes are not traced', async () => {
    await fetch(`${gateway.url}/health`);
    await fetch(`${gateway.url}/ready`);
    await settled();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('traceparent without a tracing backend', () => {
  let v025Agent: RunningSdkV025Agent;
  let plain: RunningGateway;
  let passThrough: RunningGateway;
  beforeAll(async () => {
    v025Agent = await startSdkV025Agent();
    plain = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url } }), createLogger('silent'));
    passThrough = await startGateway(defaultConfig({ port: 0, upstream: { url: v025Agent.url } }), createLogger('silent'));
  });
  afterAll(async () => {
    await plain?.close();
    await passThrough?.close();
    await v025Agent?.close();
  });

  it("reaches a 1.0 upstream unchanged from both surfaces: the upstream joins the caller's trace", async () => {
    const before = proxy.rpc('SendMessage').length;
    await (await fetch(plain.url, v1Call('SendMessage', 'plain'))).json();
    await (await fetch(plain.url, v025Call('message/send', 'plain facade'))).json();
    const calls = proxy.exchanges.filter((e) => e.rpcMethod === 'SendMessage' || e.rpcMethod === 'SendStreamingMessage').slice(-2);
    expect(proxy.rpc('SendMessage').length).toBeGreaterThan(before);
    for (const call of calls) expect(traceparentOf(call.headers)).toBe(TRACEPARENT);
  });

  it('reaches a 0.2.5 upstream through the 1.0 surface (translated) and the facade (passed through)', async () => {
    const before = v025Agent.received.length;
    await (await fetch(passThrough.url, v1Call('SendMessage', 'translated'))).json();
    await (await fetch(passThrough.url, v025Call('message/send', 'relayed'))).json();
    const sends = v025Agent.received.slice(before).filter((r) => r.rpcMethod === 'message/send' || r.rpcMethod === 'message/stream');
    expect(sends.length).toBe(2);
    for (const send of sends) expect(send.headers.traceparent).toBe(TRACEPARENT);
  });

  it("a gRPC caller's traceparent metadata reaches the upstream; a malformed one does not", async () => {
    const grpcGateway = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url }, grpc: { port: 0 } }), createLogger('silent'));
    const Constructor = makeClientConstructor(A2AService, 'A2AService');
    const client = new Constructor(grpcGateway.grpcAddress!, credentials.createInsecure()) as unknown as Client & {
      sendMessage: (request: unknown, metadata: Metadata, callback: (error: Error | null) => void) => void;
    };
    const send = (traceparent: string) =>
      new Promise<void>((resolve, reject) => {
        const metadata = new Metadata();
        metadata.set('a2a-version', '1.0');
        metadata.set('traceparent', traceparent);
        const request = requestMessage(GRPC_METHODS.sendMessage, {
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'grpc trace' }] },
        });
        client.sendMessage(request, metadata, (error) => (error ? reject(error) : resolve()));
      });
    try {
      await send(TRACEPARENT);
      expect(traceparentOf(proxy.rpc('SendMessage').at(-1)!.headers)).toBe(TRACEPARENT);
      await send('00-not-a-trace');
      expect(traceparentOf(proxy.rpc('SendMessage').at(-1)!.headers)).toBeUndefined();
    } finally {
      client.close();
      await grpcGateway.close();
    }
  });

  it('a call without traceparent sends none upstream', async () => {
    const before = proxy.exchanges.length;
    await (
      await fetch(plain.url, { ...v1Call('SendMessage', 'no trace'), headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } })
    ).json();
    for (const call of proxy.exchanges.slice(before)) expect(call.headers.traceparent).toBeUndefined();
  });
});

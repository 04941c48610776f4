/**
 * The 0.2.5 → 0.2.5 pass-through: a facade-like server whose JSON-RPC route is `forward()`, in front
 * of a scripted agent (exact bytes) and of a real a2a-js 0.2.5 agent.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { A2AError, GATEWAY_FAILURES } from '../../../src/model/index.js';
import { createV025PassThrough, type V025PassThrough } from '../../../src/upstream/v025/passthrough.js';
import { startSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { errorFrame, frame, sse, startFakeV025, type FakeV025Options } from '../../support/fake-v025.js';
import { closeAll, open, v025 } from '../support.js';

afterEach(closeAll);

/** A facade stand-in: POST / → forward(); it never looks at the body. */
async function startFacade(passThrough: V025PassThrough): Promise<string> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: async (req) => passThrough.forward(req, await req.text()), hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function setupFake(fakeOptions: FakeV025Options, config: Record<string, unknown> = {}) {
  const fake = await startFakeV025(fakeOptions);
  open.push(fake);
  const passThrough = createV025PassThrough({ baseUrl: fake.url, config: UpstreamConfig.parse(config) });
  open.push(passThrough);
  return { fake, passThrough, facadeUrl: await startFacade(passThrough) };
}

const streamBody = (id: unknown = 7) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'message/stream',
    params: { message: { kind: 'message', role: 'user', messageId: 'm-1', parts: [{ kind: 'text', text: 'hi' }] } },
  });

const callerHeaders = {
  'content-type': 'application/json',
  accept: 'text/event-stream',
  'x-api-key': 'facade-key',
  authorization: 'Bearer caller-token',
  cookie: 'session=1',
  'x-a2a-extensions': 'https://ext/one',
};

describe('forward()', () => {
  it('relays a message/stream SSE byte for byte: id lines, comments, CRLF, split UTF-8, event: error', async () => {
    let wire = '';
    const { facadeUrl } = await setupFake({
      rpc: {
        'message/stream': (call, res) => {
          wire = [
            ': keep-alive\r\n\r\n',
            frame(call, v025.task('working')),
            frame(call, v025.artifact('héllo wörld ✓')),
            errorFrame(call, { code: -32603, message: 'late failure' }),
          ].join('');
          const bytes = Buffer.from(wire, 'utf8');
          const split = bytes.indexOf(Buffer.from('✓', 'utf8')) + 1; // inside the 3-byte character
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-agent': 'scripted' });
          res.write(bytes.subarray(0, split));
          setImmediate(() => res.end(bytes.subarray(split)));
        },
      },
    });
    const response = await fetch(facadeUrl, { method: 'POST', headers: callerHeaders, body: streamBody() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-agent')).toBe('scripted');
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(wire, 'utf8'))).toBe(true);
  });

  it('sends the body as received with the upstream credentials, never the caller’s', async () => {
    const { fake, facadeUrl } = await setupFake(
      { rpc: { 'message/stream': (call, res) => sse(res, [frame(call, v025.status('completed', true))]) } },
      { auth: { token: 'upstream-token', 'api-key': 'upstream-key', 'api-key-header': 'X-Upstream-Key' } },
    );
    const body = streamBody('caller-id-1');
    await (await fetch(facadeUrl, { method: 'POST', headers: { ...callerHeaders, 'accept-encoding': 'gzip, br' }, body })).text();
    const call = fake.rpcCalls('message/stream')[0]!;
    expect(JSON.stringify({ jsonrpc: '2.0', id: call.id, method: call.method, params: call.params })).toBe(body);
    expect(call.headers.authorization).toBe('Bearer upstream-token');
    expect(call.headers['x-upstream-key']).toBe('upstream-key');
    expect(call.headers['x-api-key']).toBeUndefined();
    expect(call.headers.cookie).toBeUndefined();
    expect(call.headers['x-a2a-extensions']).toBe('https://ext/one');
    expect(call.headers['a2a-version']).toBeUndefined();
    // The agent is asked for its answer as is, whatever the caller takes: the relay writes frames of its own into it.
    expect(call.headers['accept-encoding']).toBe('identity');
  });

  it('streams as the agent writes: the first frame arrives while the agent still holds the stream; cancelling hangs up upstream', async () => {
    const { fake, facadeUrl } = await setupFake({
      rpc: { 'message/stream': (call, res) => sse(res, [frame(call, v025.task('working'))], { keepOpen: true }) },
    });
    const response = await fetch(facadeUrl, { method: 'POST', headers: callerHeaders, body: streamBody() });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"kind":"task"');
    await reader.cancel();
    expect(await fake.rpcCalls('message/stream')[0]?.closedByClient).toBe(true);
  });

  it('an unreachable agent is thrown: the gateway’s words for the caller, the transport’s failure as its cause for the log', async () => {
    // The facade answers it in the method's shape with the caller's id, and notes it (test/observability/relay-observed.test.ts).
    const { fake, passThrough } = await setupFake({});
    await passThrough.card();
    await fake.close();
    const request = new Request('http://facade.test/', { method: 'POST', headers: callerHeaders, body: streamBody(42) });
    const failure = await passThrough.forward(request, streamBody(42)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(A2AError);
    expect(failure).toMatchObject({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
    expect((failure as A2AError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('with a real a2a-js 0.2.5 agent', () => {
  it('card() is the agent’s own 0.2.5 card; message/send and message/stream come back as the agent wrote them', async () => {
    const agent = await startSdkV025Agent({ token: 'upstream-token' });
    open.push(agent);
    const passThrough = createV025PassThrough({ baseUrl: agent.url, config: UpstreamConfig.parse({ auth: { token: 'upstream-token' } }) });
    open.push(passThrough);
    const facadeUrl = await startFacade(passThrough);

    const card = await passThrough.card();
    expect(card).toMatchObject({ name: 'sdk-v025-echo', url: `${agent.url}/a2a/`, protocolVersion: '0.2.5' });

    const sent = await fetch(facadeUrl, {
      method: 'POST',
      headers: callerHeaders,
      body: JSON.stringify({ ...JSON.parse(streamBody(1)), method: 'message/send' }),
    });
    expect(await sent.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { kind: 'task', status: { state: 'completed' } } });

    const streamed = await (await fetch(facadeUrl, { method: 'POST', headers: callerHeaders, body: streamBody(2) })).text();
    const frames = streamed.split('\n\n').filter((text) => text.trim() !== '');
    expect(frames.every((text) => /^id: \d+\ndata: /.test(text))).toBe(true);
    const results = frames.map(
      (text) => (JSON.parse(text.slice(text.indexOf('data: ') + 6)) as { result: { kind: string; final?: boolean } }).result,
    );
    expect(results[0]?.kind).toBe('task');
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', final: true });
    expect(agent.received.filter((request) => request.rpcMethod).every((request) => request.headers.authorization === 'Bearer upstream-token')).toBe(
      true,
    );
  });
});

/**
 * A refused body at the HTTP edge, on every route that reads one (1.0 JSON-RPC, HTTP+JSON, the facade's
 * endpoint and its stream endpoint):
 * - Over `max-body-bytes`, chunked or by its Content-Length: refused, the rest of the body read off and
 *   dropped before the answer, and the connection kept. Answering while the client still uploaded lost
 *   the answer: a kept connection was cut by the HTTP server's own 500 ms drain (fetch: UND_ERR_SOCKET;
 *   a Node http.Agent's next request on it: "socket hang up"), a closed one reset the upload (EPIPE).
 * - An upload that does not end within the bound: answered with `Connection: close`, then closed.
 * - Sent in a content coding (gzip, br, zstd, ...): refused unread, HTTP 415 with `Accept-Encoding:
 *   identity` and -32005 ContentTypeNotSupported naming the coding, in the route's protocol; not read
 *   as the bytes it is (gzip was "not valid UTF-8", zstd was parsed as plain JSON).
 */
import http from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

const TOKEN = 'body-refusals-token-0123456789abcdef';
const KEY = 'body-refusals-bailian-key-0123456789';
const MAX_BODY = 1024 * 1024;
const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${TOKEN}` };
const FACADE = { 'content-type': 'application/json', 'x-api-key': KEY };

const rpc = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const pad = 'x'.repeat(3 * MAX_BODY);

/** Each route that bounds its body: where, with what headers, an oversized body, and its refusal as it reads. */
const ROUTES = [
  { name: '1.0 JSON-RPC', path: '/', headers: V1, oversized: rpc('SendMessage', { pad }), status: 200, kind: 'jsonrpc' },
  { name: 'HTTP+JSON', path: '/message:send', headers: V1, oversized: JSON.stringify({ pad }), status: 400, kind: 'rest' },
  { name: 'facade', path: '/bailian', headers: FACADE, oversized: rpc('message/send', { pad }), status: 200, kind: 'jsonrpc' },
  { name: 'facade stream', path: '/bailian/stream', headers: FACADE, oversized: rpc('message/stream', { pad }), status: 200, kind: 'jsonrpc' },
] as const;

type Route = (typeof ROUTES)[number];

function expectTooLarge(route: Route, body: string): void {
  // At the facade's /stream the refusal is the one SSE frame a 0.2.5 streaming client reads: the body's method is never read.
  const parsed = JSON.parse(route.path === '/bailian/stream' ? body.replace(/^data: (.*)\n\n$/s, '$1') : body) as Record<string, any>;
  if (route.kind === 'jsonrpc') expect(parsed).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request payload too large' } });
  else expect(parsed.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: 'Request payload too large' });
}

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway({
    auth: { token: TOKEN },
    bailian: { 'api-key': KEY, 'base-path': '/bailian' },
    'max-body-bytes': MAX_BODY,
  });
});
afterAll(async () => {
  await gateway?.close();
});

interface RawAnswer {
  status: number;
  connection?: string;
  acceptEncoding?: string;
  body: string;
}

/** One request through `agent`: chunked (no Content-Length) unless `declared`; a transport failure as its message. */
function send(
  agent: http.Agent,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
  declared: boolean,
): Promise<RawAnswer | string> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve) => {
    const sent = declared ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers;
    const req = http.request({ hostname, port, method: 'POST', path, agent, headers: sent, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const { connection } = res.headers;
        const acceptEncoding = res.headers['accept-encoding'];
        resolve({ status: res.statusCode ?? 0, body: text, ...(connection ? { connection } : {}), ...(acceptEncoding ? { acceptEncoding } : {}) });
      });
    });
    req.on('error', (error) => resolve(error.message));
    if (declared) req.end(body);
    else {
      req.write(body);
      req.end();
    }
  });
}

const getTask = (agent: http.Agent) => send(agent, '/', V1, rpc('GetTask', { id: 'no-such-task' }), true);

describe('a body over max-body-bytes', () => {
  it.each(ROUTES)('$name, chunked: refused, its rest read off, and the same keep-alive agent goes on', async (route) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await getTask(agent)).toMatchObject({ status: 200, connection: 'keep-alive' });
      for (let round = 0; round < 2; round++) {
        const refused = await send(agent, route.path, route.headers, route.oversized, false);
        const next = await getTask(agent);
        expect(next, 'the next request on the same agent').toMatchObject({ status: 200 });
        expect((next as RawAnswer).body).toContain('no-such-task');
        expect(refused).toMatchObject({ status: route.status, connection: 'keep-alive' });
        expectTooLarge(route, (refused as RawAnswer).body);
      }
    } finally {
      agent.destroy();
    }
  });

  it.each(ROUTES)('$name, by its Content-Length: refused, the connection kept for the next request', async (route) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send(agent, route.path, route.headers, route.oversized, true);
      expect(await getTask(agent), 'the next request on the same agent').toMatchObject({ status: 200 });
      expect(refused).toMatchObject({ status: route.status, connection: 'keep-alive' });
      expectTooLarge(route, (refused as RawAnswer).body);
    } finally {
      agent.destroy();
    }
  });

  it('by its Content-Length, far past the socket buffers (a big inline file): every time the refusal, never EPIPE', async () => {
    const route = ROUTES[2];
    const huge = rpc('message/send', { pad: 'x'.repeat(20 * MAX_BODY) });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let round = 0; round < 4; round++) {
        const answer = await send(agent, route.path, route.headers, huge, true);
        expect(typeof answer === 'object' ? answer.status : answer, `round ${round}`).toBe(route.status);
        expectTooLarge(route, (answer as RawAnswer).body);
      }
    } finally {
      agent.destroy();
    }
  });

  it.each(ROUTES)('$name, streamed by fetch: every time the refusal, never a lost answer', async (route) => {
    const bytes = new TextEncoder().encode(route.oversized);
    for (let round = 0; round < 5; round++) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.slice(at, at + 64 * 1024));
          controller.close();
        },
      });
      const answer = await fetch(`${gateway.url}${route.path}`, { method: 'POST', headers: route.headers, body, duplex: 'half' }).then(
        async (response) => ({ status: response.status, connection: response.headers.get('connection'), body: await response.text() }),
        (error: Error & { cause?: { code?: string } }) => `${error.message} ${error.cause?.code ?? ''}`,
      );
      expect(typeof answer === 'object' ? answer.status : answer, `round ${round}`).toBe(route.status);
      expectTooLarge(route, (answer as RawAnswer).body);
      expect((answer as RawAnswer).connection).toBe('keep-alive');
    }
  });
});

it('an oversized upload that stalls: answered at the bound with Connection: close', { timeout: 20_000 }, async () => {
  const { hostname, port } = new URL(gateway.url);
  const answer = await new Promise<RawAnswer | string>((resolve) => {
    const req = http.request({ hostname, port, method: 'POST', path: '/', headers: V1 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection ?? '' }));
    });
    req.on('error', (error) => resolve(error.message));
    // Past the limit, then nothing more, never the end of the body.
    req.write(rpc('SendMessage', { pad }));
  });
  expect(answer).toMatchObject({ status: 200, connection: 'close' });
  expectTooLarge(ROUTES[0], (answer as RawAnswer).body);
});

describe('a body in a content coding', () => {
  const codings: Array<[string, (text: string) => Buffer]> = [
    ['gzip', (text) => gzipSync(text)],
    ['deflate', (text) => deflateSync(text)],
    ['br', (text) => brotliCompressSync(text)],
    // Not one Node can undo: before, the bytes were read as they came (here: plain JSON, and served).
    ['zstd', (text) => Buffer.from(text)],
    ['identity, gzip', (text) => gzipSync(text)],
  ];
  const valid: Record<Route['path'], string> = {
    '/': rpc('GetTask', { id: 'no-such-task' }),
    '/message:send': JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    '/bailian': rpc('tasks/get', { id: 'no-such-task' }),
    '/bailian/stream': rpc('message/stream', { message: { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'hi' }] } }),
  };

  it.each(ROUTES)('$name: 415 with Accept-Encoding: identity and -32005 naming the coding, for every coding', async (route) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const [coding, encode] of codings) {
        const answer = await send(agent, route.path, { ...route.headers, 'content-encoding': coding }, encode(valid[route.path]), true);
        expect(answer, coding).toMatchObject({ status: 415, acceptEncoding: 'identity', connection: 'keep-alive' });
        const body = JSON.parse((answer as RawAnswer).body) as Record<string, any>;
        const words = `Content encoding not supported: Content-Encoding '${coding}'; send the body uncompressed (identity)`;
        if (route.kind === 'jsonrpc') expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005, message: words } });
        else
          expect(body.error).toMatchObject({
            code: 415,
            message: words,
            details: [expect.objectContaining({ reason: 'CONTENT_TYPE_NOT_SUPPORTED' })],
          });
      }
    } finally {
      agent.destroy();
    }
  });

  it('Content-Encoding: identity is no coding: the body is read as sent', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const answer = await send(agent, '/', { ...V1, 'content-encoding': 'identity' }, valid['/'], true);
      expect(answer).toMatchObject({ status: 200 });
      expect(JSON.parse((answer as RawAnswer).body)).toMatchObject({ id: 1, error: { code: -32001 } });
    } finally {
      agent.destroy();
    }
  });
});

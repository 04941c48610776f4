import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { GatewayEnv, RequestLogFields } from '../../../src/surfaces/shared/env.js';
import type { JsonRpcDialect, JsonRpcId, JsonRpcRequest } from '../../../src/surfaces/shared/jsonrpc.js';
import { jsonRpcEndpoint, jsonRpcResult } from '../../../src/surfaces/shared/jsonrpc-endpoint.js';
import { nonErrorsToErrorHandler, unexpectedFailureHandler } from '../../../src/surfaces/shared/unexpected-failure.js';
import { v025ErrorAnswer } from '../../../src/surfaces/v025/errors.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import type { A2AError } from '../../../src/model/index.js';
import { unhandledRejectionsDuring } from '../../support/unhandled-rejections.js';

function endpoint(dialects: JsonRpcDialect[], maxBodyBytes = 1024) {
  const app = new Hono<GatewayEnv>();
  let fields: RequestLogFields = {};
  app.use('*', async (c, next) => {
    fields = {};
    c.set('logFields', fields);
    await next();
  });
  app.post('/', jsonRpcEndpoint(dialects, { maxBodyBytes }));
  const post = async (body: string | Uint8Array, headers: Record<string, string> = {}) => {
    const response = await app.request('/', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: response.status, body: (await response.json()) as any };
  };
  return { app, post, log: () => fields };
}

const echo = (name: string, prefix: string): JsonRpcDialect & { seen: JsonRpcRequest[] } => {
  const seen: JsonRpcRequest[] = [];
  return {
    name,
    seen,
    handles: (method) => method.startsWith(prefix),
    handle: async (request) => {
      seen.push(request);
      return jsonRpcResult(request.id, { dialect: name, params: request.params ?? null });
    },
  };
};

describe('jsonRpcEndpoint envelope', () => {
  const legacy = echo('legacy', 'message/');
  const v1 = echo('v1', 'Send');
  const { post, log } = endpoint([legacy, v1]);

  it('dispatches to the first dialect that handles the method, echoing the id', async () => {
    expect(await post('{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"a":1}}')).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 7, result: { dialect: 'v1', params: { a: 1 } } },
    });
    expect((await post('{"jsonrpc":"2.0","id":"x","method":"message/send"}')).body.result.dialect).toBe('legacy');
    expect(v1.seen.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { a: 1 } });
  });

  it('refuses a notification (no id) before any dialect sees it, in every dialect; an explicit null id is a request', async () => {
    const seen = v1.seen.length + legacy.seen.length;
    for (const method of ['SendMessage', 'message/send']) {
      expect(await post(`{"jsonrpc":"2.0","method":"${method}","params":{}}`)).toEqual({
        status: 200,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: "Invalid request: 'id' is required (A2A has no notifications)" } },
      });
      expect(log().errorCode).toBe(-32600);
    }
    expect(v1.seen.length + legacy.seen.length).toBe(seen);
    expect((await post('{"jsonrpc":"2.0","id":null,"method":"SendMessage"}')).body).toEqual({
      jsonrpc: '2.0',
      id: null,
      result: { dialect: 'v1', params: null },
    });
  });

  it.each([
    ['not JSON', '{"jsonrpc":', -32700, 'Parse error', null],
    ['empty', '', -32700, 'Parse error', null],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"SendMessage"}]', -32600, 'Batch requests are not supported', null],
    ['an empty batch', '[]', -32600, 'Batch requests are not supported', null],
    ['a scalar', '42', -32600, 'Invalid request: the body must be a JSON-RPC request object', null],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":3,"method":"SendMessage"}', -32600, "Invalid request: 'jsonrpc' must be exactly '2.0'", 3],
    ['jsonrpc missing', '{"id":"a","method":"SendMessage"}', -32600, "Invalid request: 'jsonrpc' must be exactly '2.0'", 'a'],
    ['method not a string', '{"jsonrpc":"2.0","id":4,"method":5}', -32600, "Invalid request: 'method' must be a non-empty string", 4],
    ['id an object', '{"jsonrpc":"2.0","id":{},"method":"SendMessage"}', -32600, "Invalid request: 'id' must be a string, a number or null", null],
    ['an unknown method', '{"jsonrpc":"2.0","id":5,"method":"tasks/explode"}', -32601, 'Method not found', 5],
  ])('answers %s with HTTP 200 and %i', async (_name, body, code, message, id) => {
    const result = await post(body);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ jsonrpc: '2.0', id, error: { code, message } });
    expect(log().errorCode).toBe(code);
  });

  it('rejects invalid UTF-8 with -32700', async () => {
    const bytes = new Uint8Array([...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"Send\u00e9"}')]);
    bytes[bytes.length - 4] = 0xff;
    const result = await post(bytes);
    expect(result.body.error).toEqual({ code: -32700, message: 'Parse error: the body is not valid UTF-8' });
  });
});

describe('jsonRpcEndpoint body limit', () => {
  const { post, app } = endpoint([echo('v1', 'Send')], 1024);
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { pad: 'x'.repeat(2000) } });

  it('refuses a declared Content-Length over the limit', async () => {
    expect(await post(big)).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request payload too large' } },
    });
  });

  // Read to its end and dropped, not kept, so the answer is not lost to a reset upload (body-refusal.ts discardRest).
  it('refuses a streamed body once it passes the limit, reading its rest off before answering', async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode('x'.repeat(512));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 100) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await app.request(new Request('http://localhost/', { method: 'POST', body, duplex: 'half' }));
    expect(((await response.json()) as any).error).toEqual({ code: -32600, message: 'Request payload too large' });
    expect(pulled).toBe(101);
  });

  it('accepts a body right at the limit', async () => {
    const exact = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { pad: '' } });
    const padded = exact.replace('"pad":""', `"pad":"${'y'.repeat(1024 - exact.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(1024);
    expect((await post(padded)).body.result.dialect).toBe('v1');
  });
});

describe('jsonRpcEndpoint safety net', () => {
  const broken: JsonRpcDialect = {
    name: 'broken',
    handles: () => true,
    handle: async () => {
      throw new Error('/home/secret/path exploded');
    },
  };

  it("a dialect that throws is answered by the app's error handler: -32603 without details, with the request's id", async () => {
    const { app, post } = endpoint([broken]);
    app.onError(unexpectedFailureHandler({ jsonRpcPaths: new Set(['/']) }));
    expect(await post('{"jsonrpc":"2.0","id":1,"method":"Anything"}')).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
    });
  });

  it('a dialect that throws what is not an Error (Hono passes it by) is answered the same, once the app hands it on', async () => {
    const thrownValues: unknown[] = ['/home/secret/path exploded', { message: 'sk-live-0000' }, undefined];
    for (const thrown of thrownValues) {
      const throwing: JsonRpcDialect = {
        name: 'throwing',
        handles: () => true,
        handle: async () => {
          throw thrown;
        },
      };
      const app = new Hono<GatewayEnv>();
      app.use('*', nonErrorsToErrorHandler());
      app.post('/', jsonRpcEndpoint([throwing], { maxBodyBytes: 1024 }));
      app.onError(unexpectedFailureHandler({ jsonRpcPaths: new Set(['/']) }));
      const response = await app.request('/', {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":2,"method":"Anything"}',
        headers: { 'content-type': 'application/json' },
      });
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 200,
        body: { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } },
      });
    }
  });

  it("in the facade's form on its paths: one SSE frame for a 0.2.5 streaming method", async () => {
    const app = new Hono<GatewayEnv>();
    app.post('/stream', jsonRpcEndpoint([broken], { maxBodyBytes: 1024 }));
    const facade = {
      paths: new Set(['/stream']),
      streamPaths: new Set(['/stream']),
      answer: (id: JsonRpcId, method: string, error: A2AError) => v025ErrorAnswer(id, method, error, loadMappingProfile('bailian')),
    };
    app.onError(unexpectedFailureHandler({ jsonRpcPaths: new Set(['/', '/stream']), facade }));
    const response = await app.request('/stream', {
      method: 'POST',
      body: '{"jsonrpc":"2.0","id":"s","method":"message/stream"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toBe('data: {"jsonrpc":"2.0","id":"s","error":{"code":-32603,"message":"Internal error"}}\n\n');
  });

  it("before the method is read, at the facade's stream path with a trailing slash too: one SSE frame", async () => {
    const app = new Hono<GatewayEnv>();
    app.post('/stream/', () => {
      throw new Error('a bug before the body was read');
    });
    const facade = {
      paths: new Set(['/stream', '/stream/']),
      streamPaths: new Set(['/stream', '/stream/']),
      answer: (id: JsonRpcId, method: string, error: A2AError) => v025ErrorAnswer(id, method, error, loadMappingProfile('bailian')),
    };
    app.onError(unexpectedFailureHandler({ jsonRpcPaths: new Set(['/', ...facade.paths]), facade }));
    const response = await app.request('/stream/', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });
});

describe('jsonRpcEndpoint admission', () => {
  it('a caller one dialect admits at once is served; a check another dialect had started is not left to fail unhandled', async () => {
    const checking: JsonRpcDialect = {
      ...echo('checking', 'Send'),
      // A token check still running when the next dialect says yes, which later fails.
      admits: () => new Promise<boolean>((_, reject) => setTimeout(() => reject(new Error('key set unreachable')), 10)),
    };
    const open = echo('open', 'message/');
    const { post } = endpoint([checking, open]);
    const unhandled = await unhandledRejectionsDuring(async () => {
      expect((await post('{"jsonrpc":"2.0","id":1,"method":"message/send"}')).body.result.dialect).toBe('open');
    }, 40);
    expect(unhandled).toEqual([]);
  });
});

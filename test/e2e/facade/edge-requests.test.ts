/**
 * What a caller with curl reads at the edges of the facade under its own base path and of the 1.0 endpoint: a trailing
 * slash, a path nothing serves, another method (a CORS preflight among them), a body that is no JSON-RPC request at
 * the facade's `/stream`. Each gets an answer that says what is wrong in the caller's version, never a 401 that
 * tells a caller with the right X-API-KEY its key is wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { API_KEY, openStream, postRaw, rpc, userMessage } from '../../support/facade.js';

const KEY = { 'X-API-KEY': API_KEY };
const V1_TOKEN = 'v1-edge-token';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway({ bailian: { 'base-path': '/bailian', 'api-key': API_KEY }, auth: { token: V1_TOKEN } });
});
afterAll(() => gateway.close());

const send = (url: string) => rpc(url, 'message/send', { message: userMessage({ text: 'hi' }) }, { id: 1, headers: KEY });

describe('a trailing slash, as a URL pasted into the console has it', () => {
  it('POST /bailian/ is POST /bailian: message/send answers its task', async () => {
    const answer = await send(`${gateway.url}/bailian/`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { kind: 'task', status: { state: 'completed' } } });
  });

  it('POST /bailian/stream/ is POST /bailian/stream: message/stream streams to its final event', async () => {
    const stream = await openStream(
      `${gateway.url}/bailian/stream/`,
      'message/stream',
      { message: userMessage({ text: 'hi' }) },
      { id: 2, headers: KEY },
    );
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await stream.rest();
    expect(frames.every((frame) => frame.json.id === 2 && frame.json.error === undefined)).toBe(true);
    expect(frames.at(-1)!.json.result).toMatchObject({ final: true, status: { state: 'completed' } });
  });
});

describe('a path under the facade that nothing serves', () => {
  for (const [method, path] of [
    ['POST', '/bailian/send'],
    ['POST', '/bailian/stream/x'],
    ['GET', '/bailian/anything/else'],
  ] as const) {
    it(`${method} ${path} with the right key: 404 with a 0.2.5 error naming the facade's routes, not 401`, async () => {
      const response = await fetch(`${gateway.url}${path}`, {
        method,
        headers: { ...KEY, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32601,
          message:
            'Not Found: the Bailian facade serves JSON-RPC at POST /bailian and POST /bailian/stream, its card at GET /bailian/.well-known/agent.json',
        },
      });
    });
  }

  it('a 1.0 HTTP+JSON path of a tenant named like the base stays the 1.0 surface: its 401 without 1.0 credentials', async () => {
    const response = await fetch(`${gateway.url}/bailian/tasks/t-1`, { headers: KEY });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  });
});

describe('another method, without any credentials', () => {
  for (const path of ['/bailian', '/bailian/', '/bailian/stream', '/bailian/stream/', '/']) {
    for (const method of ['OPTIONS', 'GET', 'HEAD', 'PUT']) {
      it(`${method} ${path}: 405 with Allow: POST (no CORS is configured; not a 401)`, async () => {
        const response = await fetch(`${gateway.url}${path}`, {
          method,
          headers: { origin: 'https://example.com', 'access-control-request-method': 'POST' },
        });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        if (method !== 'HEAD') expect(await response.json()).toEqual({ error: 'Method Not Allowed' });
      });
    }
  }

  for (const path of ['/bailian/.well-known/agent.json', '/bailian/.well-known/agent-card.json', '/.well-known/agent.json']) {
    it(`POST ${path}: 405 with Allow: GET, HEAD; GET still the card`, async () => {
      const response = await fetch(`${gateway.url}${path}`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
    });
  }
});

describe("the gateway's routes that are read, without any credentials", () => {
  for (const path of ['/health', '/ready', '/.well-known/agent-card.json']) {
    it(`POST ${path}: 405 with Allow: GET, HEAD, not the 1.0 surface's 401`, async () => {
      const response = await fetch(`${gateway.url}${path}`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    });
  }

  it('GET of the 1.0 card still asks for the 1.0 credentials', async () => {
    expect((await fetch(`${gateway.url}/.well-known/agent-card.json`)).status).toBe(401);
    const card = await fetch(`${gateway.url}/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${V1_TOKEN}` } });
    expect(card.status).toBe(200);
  });
});

describe("a body that is no request, at the facade's /stream: the one SSE frame a 0.2.5 streaming client reads", () => {
  for (const [name, body, code, message] of [
    ['not JSON', 'not json', -32700, 'Parse error'],
    ['a batch', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'message/stream', params: {} }]), -32600, 'Batch requests are not supported'],
    ['not an object', '42', -32600, 'Invalid request: the body must be a JSON-RPC request object'],
  ] as const) {
    it(`${name}: text/event-stream, one unnamed frame with the error and id null`, async () => {
      const answer = await postRaw(`${gateway.url}/bailian/stream`, body, KEY);
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/^text\/event-stream/);
      expect(answer.text).toBe(`data: ${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })}\n\n`);
    });
  }

  it('a body that does not say it is JSON: -32005 in the same frame, in 0.2.5 form (no 1.0 ErrorInfo list)', async () => {
    const answer = await postRaw(`${gateway.url}/bailian/stream`, 'hello', { ...KEY, 'content-type': 'text/plain' });
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32005, message: expect.stringMatching(/^Content type not supported/) } });
  });

  it('at /bailian, where message/send is posted: the same errors as JSON, in 0.2.5 form', async () => {
    const parse = await postRaw(`${gateway.url}/bailian`, 'not json', KEY);
    expect(parse.contentType).toMatch(/^application\/json/);
    expect(parse.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    const contentType = await postRaw(`${gateway.url}/bailian`, 'hello', { ...KEY, 'content-type': 'text/plain' });
    expect(contentType.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: expect.stringMatching(/^Content type not supported/) },
    });
  });

  it("an envelope that names message/stream but is refused ('jsonrpc' not 2.0): one frame at either path, with its id", async () => {
    for (const path of ['/bailian', '/bailian/stream']) {
      const answer = await postRaw(`${gateway.url}${path}`, JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'message/stream', params: {} }), KEY);
      expect(answer.contentType).toMatch(/^text\/event-stream/);
      expect(answer.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: "Invalid request: 'jsonrpc' must be exactly '2.0'" } });
    }
  });
});

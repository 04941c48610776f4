/**
 * A caller without the facade's key reads why, in the official a2a-js 0.2.5 client's report, for message/send and
 * message/stream alike: the 401 body is a JSON-RPC error object naming the X-API-KEY header. `{"error":"Unauthorized"}`
 * read "RPC error for message/send: undefined (Code: undefined, …)". The status stays 401, with no WWW-Authenticate,
 * and the body carries no key.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import type { RunningGateway } from '../../../src/app.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startFacadeGateway, userMessage } from '../../support/facade.js';

const WORDS = 'Unauthorized: a valid API key is required in the X-API-KEY header';

describe('a facade caller without the right key', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ bailian: { 'api-key': API_KEY, 'base-path': '/bailian' } });
  });
  afterAll(() => gateway?.close());

  it.each(['/bailian', '/bailian/stream'])('POST %s: 401, a JSON-RPC error naming X-API-KEY, no WWW-Authenticate, no key', async (path) => {
    for (const headers of [{}, { 'X-API-KEY': 'wrong' }] as Array<Record<string, string>>) {
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method: 'message/send', params: { message: userMessage() } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBeNull();
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ id: null, error: { code: -32000, message: WORDS } });
      expect(text).not.toContain(API_KEY);
    }
  });

  it('the a2a-js 0.2.5 client reports the words, for message/send and message/stream', async () => {
    const client = new A2AClient(`${gateway.url}/bailian`);
    const message = userMessage({ text: 'hello' }) as any;
    await expect(client.sendMessage({ message })).rejects.toThrow(`RPC error for message/send: ${WORDS} (Code: -32000, HTTP Status: 401)`);
    await expect(client.sendMessageStream({ message }).next()).rejects.toThrow(
      `HTTP error establishing stream for message/stream: 401 Unauthorized. RPC Error: ${WORDS} (Code: -32000)`,
    );
  });
});

describe('on POST /, shared with the 1.0 surface, both behind credentials (bailian.base-path /)', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ auth: { token: 'v1-token' }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(() => gateway?.close());

  const post = (headers: Record<string, string>, method: string, params: unknown) =>
    fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method, params }),
    });

  it("a 0.2.5 caller refused before its body is read gets the facade's 401, a 1.0 caller the 1.0 surface's", async () => {
    for (const headers of [{}, { 'X-API-KEY': 'wrong' }] as Array<Record<string, string>>) {
      const refused = await post(headers, 'message/send', { message: userMessage() });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ id: null, error: { code: -32000, message: WORDS } });
    }
    const v1 = await post({ 'a2a-version': '1.0', authorization: 'Bearer wrong' }, 'GetTask', { id: 'x' });
    expect(v1.status).toBe(401);
    expect(await v1.json()).toEqual({ error: 'Unauthorized' });
  });

  it('the a2a-js 0.2.5 client reports the words there too', async () => {
    const client = new A2AClient(gateway.url);
    await expect(client.sendMessage({ message: userMessage({ text: 'hello' }) as any })).rejects.toThrow(`RPC error for message/send: ${WORDS}`);
  });
});

// The 1.0 surface's API keys come in X-API-Key by default, which is the facade's X-API-KEY: a stale Bailian key was
// answered the 1.0 surface's `{"error":"Unauthorized"}`, read "undefined" by the 0.2.5 client (the body above is what it reads).
describe('on POST /, beside 1.0 API keys in the same header (auth.api-keys)', () => {
  const V1_KEY = 'v1-api-key-0123456789abcdef';
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ auth: { 'api-keys': [V1_KEY] }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(() => gateway?.close());

  it("a stale Bailian key asking for no 1.x version gets the facade's 401; with A2A-Version: 1.0, the 1.0 surface's", async () => {
    const post = (headers: Record<string, string>, method: string, params: unknown) =>
      fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method, params }),
      });
    const stale = await post({ 'X-API-KEY': 'an-old-bailian-key' }, 'message/send', { message: userMessage() });
    expect(stale.status).toBe(401);
    expect(await stale.json()).toEqual({ id: null, error: { code: -32000, message: WORDS } });
    const v1 = await post({ 'X-API-Key': 'an-old-v1-key', 'a2a-version': '1.0' }, 'GetTask', { id: 'x' });
    expect(v1.status).toBe(401);
    expect(await v1.json()).toEqual({ error: 'Unauthorized' });
  });
});

/**
 * A caller with valid credentials for one version, knocking at the other's door, is told so: not
 * "Unauthorized", which reads as a wrong token. 401 stays for credentials that are wrong everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

const TOKEN = 'door-token-zzzzzzzzzzzzzzzzzzzzzzzz';
const KEY = 'door-bailian-key-yyyyyyyyyyyyyyyyyy';
const FACADE = { 'x-api-key': KEY };
const V1 = { authorization: `Bearer ${TOKEN}`, 'a2a-version': '1.0' };
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
const message025 = { message: { kind: 'message', role: 'user', messageId: 'm-door', parts: [{ kind: 'text', text: 'hi' }] } };

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway({ auth: { token: TOKEN }, bailian: { 'api-key': KEY } });
});
afterAll(() => gateway?.close());

const post = (path: string, headers: Record<string, string>, body: string) =>
  fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('GET on the JSON-RPC endpoints with valid credentials', () => {
  for (const path of ['/', '/stream']) {
    it(`GET ${path}: 405 with Allow: POST for the facade key and the 1.0 token alike, never Unauthorized`, async () => {
      for (const headers of [FACADE, V1]) {
        const answer = await fetch(`${gateway.url}${path}`, { headers });
        const body = await answer.text();
        expect({ status: answer.status, allow: answer.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
        expect(body).not.toMatch(/Unauthorized/);
      }
    });
  }
});

describe('POST / with credentials of the other version', () => {
  it("a 1.0 token with message/send (a 0.3 SDK client): a 0.2.5 error saying the method is the facade's, which takes X-API-KEY", async () => {
    const answer = await post('/', V1, rpc('message/send', message025));
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { jsonrpc: string; id: number; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    expect(body.error.message).toMatch(/message\/send is an A2A 0\.2\.5\/0\.3 method/);
    expect(body.error.message).toMatch(/Bailian facade/);
    expect(body.error.message).toMatch(/X-API-KEY/);
  });

  it('a 1.0 token with message/stream: the same, as the one SSE frame a 0.2.5 stream answers errors in', async () => {
    const answer = await post('/', V1, rpc('message/stream', message025));
    expect(answer.status).not.toBe(401);
    const text = await answer.text();
    expect(text).toMatch(/X-API-KEY/);
    expect(text).not.toMatch(/Unauthorized/);
  });

  it('the facade key with a 1.0 method: says it takes the 1.0 credentials', async () => {
    const answer = await post('/', FACADE, rpc('GetTask', { id: 'x' }));
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/GetTask is an A2A 1\.0 method/);
  });

  it('wrong credentials are still 401 Unauthorized', async () => {
    const wrong = await post('/', { authorization: 'Bearer not-the-token' }, rpc('message/send', message025));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'Unauthorized' });
    const none = await fetch(`${gateway.url}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: rpc('message/stream', message025),
    });
    expect(none.status).toBe(401);
  });

  it("a method's own credentials, wrong, beside the other version's right ones: 401, so a client refreshes its expired token (review)", async () => {
    const expired = await post('/', { ...FACADE, authorization: 'Bearer expired-token', 'a2a-version': '1.0' }, rpc('GetTask', { id: 'x' }));
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ error: 'Unauthorized' });
    const wrongKey = await post('/', { ...V1, 'x-api-key': 'an-old-facade-key' }, rpc('message/send', message025));
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.json()).toEqual({
      id: null,
      error: { code: -32000, message: 'Unauthorized: a valid API key is required in the X-API-KEY header' },
    });
  });
});

describe("POST / where the 1.0 surface's API keys come in X-API-Key (auth.api-key-header's default), the facade's header too", () => {
  const V1_KEY = 'door-v1-key-xxxxxxxxxxxxxxxxxxxxxxxxxx';
  let shared: TestGateway;
  beforeAll(async () => {
    shared = await startDemoGateway({ auth: { 'api-key': V1_KEY }, bailian: { 'api-key': KEY } });
  });
  afterAll(() => shared?.close());
  const postShared = (headers: Record<string, string>, body: string) =>
    fetch(`${shared.url}/`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it("a valid 1.0 key with a 0.2.5 method: told the method is the facade's, as a 1.0 token is, not that its key is wrong", async () => {
    const v1Key = { 'x-api-key': V1_KEY, 'a2a-version': '1.0' };
    const got = await postShared(v1Key, rpc('tasks/get', { id: 'x' }));
    expect(got.status).toBe(200);
    const body = (await got.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/^tasks\/get is an A2A 0\.2\.5\/0\.3 method, served by the Bailian facade/);
    const streamed = await postShared(v1Key, rpc('message/stream', message025));
    expect(streamed.status).toBe(200);
    const frame = await streamed.text();
    expect(frame).toMatch(/message\/stream is an A2A 0\.2\.5\/0\.3 method/);
    expect(frame).not.toMatch(/Unauthorized/);
  });

  it("the facade's key with a 1.0 method: told the method is 1.0's", async () => {
    const answer = await postShared({ 'x-api-key': KEY }, rpc('GetTask', { id: 'x' }));
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/^GetTask is an A2A 1\.0 method/);
    // Beside a 1.0 credential of its own, wrong (an expired token), it is 401, so that client refreshes its token.
    const expired = await postShared({ 'x-api-key': KEY, authorization: 'Bearer expired-token', 'a2a-version': '1.0' }, rpc('GetTask', { id: 'x' }));
    expect(expired.status).toBe(401);
  });

  it('a key neither surface takes is still 401, in the words of the surface whose method it called', async () => {
    const stale = await postShared({ 'x-api-key': 'an-old-key', 'a2a-version': '1.0' }, rpc('tasks/get', { id: 'x' }));
    expect(stale.status).toBe(401);
    const staleV1 = await postShared({ 'x-api-key': 'an-old-key', 'a2a-version': '1.0' }, rpc('GetTask', { id: 'x' }));
    expect(staleV1.status).toBe(401);
    expect(await staleV1.json()).toEqual({ error: 'Unauthorized' });
    // Each key with its own surface's method is served as before.
    const own = await postShared({ 'x-api-key': KEY }, rpc('tasks/get', { id: 'never-such-task' }));
    expect(((await own.json()) as { error: { code: number } }).error.code).toBe(-32001);
  });
});

/**
 * `POST /` checks credentials before anything else when no dialect would serve the caller without
 * them: an unauthenticated caller gets 401 for a bad body, an unknown method or a batch alike, never
 * -32700/-32601/-32600 that would tell it what the endpoint parses. When one surface is open (the
 * facade without a key), envelope errors are still answered, as that surface's callers need them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

const BODIES = [
  'not json',
  '[]',
  '{"jsonrpc":"2.0","id":1,"method":"NoSuchMethod"}',
  '{"jsonrpc":"2.0","id":1,"method":"tasks/nothing"}',
  '{"jsonrpc":"1.0"}',
];

const FACADE_UNAUTHORIZED = { id: null, error: { code: -32000, message: 'Unauthorized: a valid API key is required in the X-API-KEY header' } };

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, json: await response.json() };
}

describe('every surface needs credentials', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({ auth: { token: 'tok-first' }, bailian: { 'api-key': 'key-first' } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(BODIES)('without credentials, %j is a 401 before any parsing', async (body) => {
    // A caller that names no 1.x version is taken for the facade's (0.2.5): its 401 says which key it needs.
    expect(await post(gateway.url, body)).toEqual({ status: 401, json: FACADE_UNAUTHORIZED });
    expect(await post(gateway.url, body, { authorization: 'Bearer wrong', 'x-api-key': 'wrong' })).toEqual({
      status: 401,
      json: { error: 'Unauthorized' },
    });
  });

  it("with either surface's credentials the envelope errors are answered", async () => {
    const credentials: Array<Record<string, string>> = [{ authorization: 'Bearer tok-first' }, { 'x-api-key': 'key-first' }];
    for (const headers of credentials) {
      const answer = await post(gateway.url, 'not json', headers);
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    }
  });
});

describe('one surface open', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({ auth: { token: 'tok-first' } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('the open facade still answers envelope errors, and a 1.0 method still needs the token', async () => {
    expect((await post(gateway.url, 'not json')).json).toMatchObject({ error: { code: -32700 } });
    expect(await post(gateway.url, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}', { 'a2a-version': '1.0' })).toEqual({
      status: 401,
      json: { error: 'Unauthorized' },
    });
  });
});

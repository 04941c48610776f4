/**
 * A call the JSON-RPC endpoint refuses before a dialect takes it (not JSON, `jsonrpc` not "2.0", no method, a method
 * no version serves) still came with credentials that name a client: its request line carries `client` and
 * a2a_bridge_requests_total its label, as for the calls it serves, so an operator sees which client sends the bad
 * requests. Before, these lines and series had no client. With no `auth.*` set the 1.0 dialect admits every caller and
 * is asked first, naming nobody: a caller who presents the facade's named `X-API-KEY` is then named as its facade calls
 * are (the key's name is stable and no secret); one who presents nothing, by none.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../support/gateway.js';
import { addedBy } from '../support/prometheus.js';

const BAILIAN = { 'api-keys': [{ name: 'bailian-prod', key: 'bk-named' }] };
let gateway: TestGateway;
/** No `auth.*`: the 1.0 dialect admits anyone. */
let open: TestGateway;
beforeAll(async () => {
  [gateway, open] = await Promise.all([
    startDemoGateway({ auth: { tokens: [{ name: 'acme', token: 'tok-acme' }] }, bailian: BAILIAN }),
    startDemoGateway({ bailian: BAILIAN }),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway?.close(), open?.close()]);
});

/** `body` posted to `POST /` of `to` with `headers` and its own X-Request-Id; the request log line it wrote. */
async function post(body: string, headers: Record<string, string>, to = gateway): Promise<Record<string, unknown>> {
  const reqId = `envelope-client-${randomUUID()}`;
  const response = await fetch(to.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': reqId, ...headers },
    body,
  });
  await response.text();
  const line = to.log().find((entry) => entry.msg === 'request' && entry.reqId === reqId);
  expect(line, 'the request line').toBeDefined();
  return line!;
}

const V1 = { authorization: 'Bearer tok-acme', 'a2a-version': '1.0' };
const BAD_ENVELOPES: [string, string, number][] = [
  ['not JSON', '{"jsonrpc":', -32700],
  ['jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 'x' } }), -32600],
  ['no method', JSON.stringify({ jsonrpc: '2.0', id: 1 }), -32600],
  ['a method no version serves', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'NoSuchMethod', params: {} }), -32601],
];

describe('an envelope the endpoint refuses, from a named credential', () => {
  it.each(BAD_ENVELOPES)('%s: the 1.0 token names the client on the line and in the metrics', async (_case, body, code) => {
    let line: Record<string, unknown> = {};
    const added = await addedBy(gateway.url, 'a2a_bridge_requests_total', async () => {
      line = await post(body, V1);
    });
    expect(line).toMatchObject({ status: 200, errorCode: code, client: 'acme' });
    expect(added({ outcome: 'error', error_code: String(code), client: 'acme' })).toBe(1);
  });

  it("the facade's named X-API-KEY names its client too", async () => {
    expect(await post('{"jsonrpc":', { 'x-api-key': 'bk-named' })).toMatchObject({ errorCode: -32700, client: 'bailian-prod' });
  });

  it('a refused credential names none', async () => {
    const line = await post('{"jsonrpc":', { authorization: 'Bearer acme', 'a2a-version': '1.0' });
    expect(line).toMatchObject({ status: 401 });
    expect(line).not.toHaveProperty('client');
  });
});

describe('an envelope the endpoint refuses, no auth.* set', () => {
  it("a facade call's line names its key's client", async () => {
    const line = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } }),
      { 'x-api-key': 'bk-named' },
      open,
    );
    expect(line).toMatchObject({ client: 'bailian-prod' });
  });

  it.each([BAD_ENVELOPES[0]!, BAD_ENVELOPES[3]!])('%s, with the named X-API-KEY: named as its facade calls are', async (_case, body, code) => {
    let line: Record<string, unknown> = {};
    const added = await addedBy(open.url, 'a2a_bridge_requests_total', async () => {
      line = await post(body, { 'x-api-key': 'bk-named' }, open);
    });
    expect(line).toMatchObject({ errorCode: code, client: 'bailian-prod' });
    expect(added({ outcome: 'error', error_code: String(code), client: 'bailian-prod' })).toBe(1);
  });

  it('without credentials: no client', async () => {
    const line = await post('{"jsonrpc":', {}, open);
    expect(line).toMatchObject({ errorCode: -32700 });
    expect(line).not.toHaveProperty('client');
  });
});

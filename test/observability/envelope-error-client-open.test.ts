/**
 * With no `auth.*` set, the 1.0 dialect admits every caller, and it is the first asked to: a request the JSON-RPC
 * endpoint refuses before a dialect takes it (not JSON, a method no version serves) from a caller who presents the
 * facade's named `X-API-KEY` is named as that caller's facade calls are (`client`), on its line and in
 * a2a_bridge_requests_total: the key's name is stable and no secret. A caller who presents nothing is named by none.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../support/gateway.js';
import { addedBy } from '../support/prometheus.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway({ bailian: { 'api-keys': [{ name: 'bailian-prod', key: 'bk-named' }] } });
});
afterAll(async () => {
  await gateway?.close();
});

/** `body` posted to `POST /` with `headers` and its own X-Request-Id; the request log line it wrote. */
async function post(body: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const reqId = `envelope-open-${randomUUID()}`;
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': reqId, ...headers },
    body,
  });
  await response.text();
  const line = gateway.log().find((entry) => entry.msg === 'request' && entry.reqId === reqId);
  expect(line, 'the request line').toBeDefined();
  return line!;
}

describe('an envelope the endpoint refuses, no auth.* set', () => {
  it("a facade call's line names its key's client", async () => {
    const line = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } }), { 'x-api-key': 'bk-named' });
    expect(line).toMatchObject({ client: 'bailian-prod' });
  });

  it.each([
    ['not JSON', '{"jsonrpc":', -32700],
    ['a method no version serves', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'NoSuchMethod', params: {} }), -32601],
  ])('%s, with the named X-API-KEY: named as its facade calls are', async (_case, body, code) => {
    let line: Record<string, unknown> = {};
    const added = await addedBy(gateway.url, 'a2a_bridge_requests_total', async () => {
      line = await post(body, { 'x-api-key': 'bk-named' });
    });
    expect(line).toMatchObject({ errorCode: code, client: 'bailian-prod' });
    expect(added({ outcome: 'error', error_code: String(code), client: 'bailian-prod' })).toBe(1);
  });

  it('without credentials: no client', async () => {
    const line = await post('{"jsonrpc":', {});
    expect(line).toMatchObject({ errorCode: -32700 });
    expect(line).not.toHaveProperty('client');
  });
});

/**
 * The level of a failed call's request line follows whose failure it was, not the binding's status code: an agent
 * out of reach is a warning with its cause on HTTP+JSON (answered 503) as on JSON-RPC (answered 200), so an
 * operator's filter on level sees one outage alike whichever binding its callers use. A failure of the gateway
 * itself (a bug, 500 without a cause) stays at error (test/log.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const WARN = 40;

let fake: FakeIacCode;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startFakeIacCode();
  gateway = await startTestGateway({ upstream: { url: fake.url } });
  await fake.close();
});
afterAll(async () => {
  await gateway?.close();
});

let sequence = 0;

async function requestLine(path: string, body: unknown): Promise<Record<string, unknown>> {
  const reqId = `rest-failure-${++sequence}`;
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': reqId },
    body: JSON.stringify(body),
  });
  await res.text();
  const line = gateway.log().find((entry) => entry.msg === 'request' && entry.reqId === reqId);
  expect(line).toBeDefined();
  return line!;
}

const message = () => ({ message: { messageId: `m-${++sequence}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } });

describe('request line of a call whose agent is gone', () => {
  it('is a warning naming ECONNREFUSED on JSON-RPC and on HTTP+JSON alike', async () => {
    const jsonRpc = await requestLine('/', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message() });
    const rest = await requestLine('/message:send', message());
    expect(jsonRpc).toMatchObject({ level: WARN, status: 200, causeCode: 'ECONNREFUSED' });
    expect(rest).toMatchObject({ status: 503, causeCode: 'ECONNREFUSED' });
    expect(rest.level).toBe(WARN);
  });
});

/**
 * A call the upstream failed (refused, reset, timed out, 5xx) is the operator's to look into: its request
 * line is a warning with the cause, though JSON-RPC and the facade answer it with HTTP 200. A caller's own
 * bad request stays an info line without a cause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const WARN = 40;
const INFO = 30;

let fake: FakeIacCode;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startFakeIacCode();
  gateway = await startTestGateway({ upstream: { url: fake.url, 'headers-timeout-ms': 300 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

let sequence = 0;

/** A 1.0 JSON-RPC call of `method`; its request line, found by the request id. */
async function call(method: string, params: unknown, path = '/'): Promise<Record<string, unknown>> {
  const reqId = `upstream-failure-${++sequence}`;
  const body = path === '/' ? JSON.stringify({ jsonrpc: '2.0', id: sequence, method, params }) : JSON.stringify(params);
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': reqId },
    body,
  });
  await res.text();
  const line = gateway.log().find((entry) => entry.msg === 'request' && entry.reqId === reqId);
  expect(line).toBeDefined();
  return line!;
}

const turn = (text: string) => ({ message: { messageId: `m-${++sequence}`, role: 'ROLE_USER', parts: [{ text }] } });

describe('request lines of failed calls', () => {
  it('an upstream that answers HTTP 500: a warning with the cause, though the JSON-RPC answer is HTTP 200', async () => {
    const line = await call('SendMessage', turn('[fault:http-500]'));
    expect(line).toMatchObject({ level: WARN, status: 200, errorCode: -32006, cause: 'The upstream agent answered HTTP 500' });
  });

  it('an upstream that resets the connection or never answers: a warning with the transport error and its code', async () => {
    const reset = await call('SendMessage', turn('[fault:kill-mid-stream]'));
    expect(reset).toMatchObject({ level: WARN, errorCode: -32603, causeCode: 'UND_ERR_SOCKET' });
    const timedOut = await call('SendStreamingMessage', turn('[fault:hang-before-headers]'));
    expect(timedOut).toMatchObject({ level: WARN, errorCode: -32603, causeCode: 'UND_ERR_HEADERS_TIMEOUT' });
  });

  it("an agent's own -32603: a warning with its message, scrubbed as the caller's answer is", async () => {
    const line = await call('SendMessage', turn('[fault:internal-error]'));
    expect(line).toMatchObject({ level: WARN, errorCode: -32603 });
    expect(line.cause).toContain('RuntimeError');
    expect(line.cause).not.toContain('sk-live-0123456789abcdef');
    expect(line.cause).not.toContain('/home/alice');
  });

  it("a caller's own bad request stays an info line, without a cause", async () => {
    const line = await call('GetTask', {});
    expect(line).toMatchObject({ level: INFO, errorCode: -32602 });
    expect(line).not.toHaveProperty('cause');
  });

  it('an upstream that is gone: a warning naming ECONNREFUSED, on the facade too', async () => {
    await fake.close();
    const v1 = await call('SendMessage', turn('hello'));
    expect(v1).toMatchObject({ level: WARN, errorCode: -32603, causeCode: 'ECONNREFUSED' });
    expect(v1.cause).toMatch(/ECONNREFUSED/);
    const message = { kind: 'message', role: 'user', messageId: `m-${++sequence}`, parts: [{ kind: 'text', text: 'hi' }] };
    const facade = await call('message/send', { message });
    expect(facade).toMatchObject({ level: WARN, surface: 'v025', causeCode: 'ECONNREFUSED' });
  });
});

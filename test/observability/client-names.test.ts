/**
 * Client names in the gateway's own output: a call with a named credential carries `client` on its
 * request log line (gRPC: its call line) and as the `client` label of a2a_bridge_requests_total; an
 * unnamed or refused one has no field and an empty label. The 1.0 JSON-RPC surface, the facade
 * (`X-API-KEY`) and gRPC, on one gateway.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../support/gateway.js';
import { addedBy, scrape } from '../support/prometheus.js';
import { sendRequest } from '../support/sdk-v1-client.js';
import { grpcTransport, wire } from '../e2e/grpc/grpc-client.js';

const REQUESTS = 'a2a_bridge_requests_total';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway({
    grpc: { port: 0 },
    auth: { tokens: [{ name: 'acme', token: 'tok-acme' }, 'tok-plain'], 'api-keys': [{ name: 'beta', key: 'key-beta' }] },
    bailian: { 'api-keys': [{ name: 'bailian-prod', key: 'bk-named' }, 'bk-plain'] },
  });
});
afterAll(async () => {
  await gateway?.close();
});

/** One blocking call on `POST /`, with its own X-Request-Id; the request log line it wrote. */
async function call(method: string, params: unknown, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const reqId = `client-names-${randomUUID()}`;
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': reqId, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  await response.text();
  const line = gateway.log().find((entry) => entry.msg === 'request' && entry.reqId === reqId);
  expect(line, `the request line of ${method}`).toBeDefined();
  return line!;
}

const v1Send = (headers: Record<string, string>) =>
  call('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, headers);
const facadeSend = (headers: Record<string, string>) =>
  call('message/send', { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hi' }] } }, headers);

describe('the request log line', () => {
  it('1.0 JSON-RPC: a named token or API key gives `client`, an unnamed token none', async () => {
    expect(await v1Send({ authorization: 'Bearer tok-acme' })).toMatchObject({
      surface: 'jsonrpc',
      method: 'SendMessage',
      status: 200,
      client: 'acme',
    });
    expect(await v1Send({ 'x-api-key': 'key-beta' })).toMatchObject({ surface: 'jsonrpc', status: 200, client: 'beta' });
    const plain = await v1Send({ authorization: 'Bearer tok-plain' });
    expect(plain).toMatchObject({ surface: 'jsonrpc', method: 'SendMessage', status: 200 });
    expect(plain).not.toHaveProperty('client');
  });

  it('the facade: a named X-API-KEY gives `client`, an unnamed one none', async () => {
    expect(await facadeSend({ 'x-api-key': 'bk-named' })).toMatchObject({
      surface: 'v025',
      method: 'message/send',
      status: 200,
      client: 'bailian-prod',
    });
    const plain = await facadeSend({ 'x-api-key': 'bk-plain' });
    expect(plain).toMatchObject({ surface: 'v025', method: 'message/send', status: 200 });
    expect(plain).not.toHaveProperty('client');
  });

  it('a refused call has no client, even when it presents a name', async () => {
    const refused = await v1Send({ authorization: 'Bearer acme' });
    expect(refused).toMatchObject({ status: 401 });
    expect(refused).not.toHaveProperty('client');
  });
});

/** What `calls` add to a2a_bridge_requests_total, by labels (other tests of the file count too). */
const counted = (calls: () => Promise<unknown>) => addedBy(gateway.url, REQUESTS, calls);

describe('a2a_bridge_requests_total', () => {
  it('is labelled with the client name, or an empty client when unnamed or refused', async () => {
    const added = await counted(async () => {
      await v1Send({ authorization: 'Bearer tok-acme' });
      await v1Send({ 'x-api-key': 'key-beta' });
      await v1Send({ authorization: 'Bearer tok-plain' });
      await facadeSend({ 'x-api-key': 'bk-named' });
      await facadeSend({ 'x-api-key': 'bk-plain' });
      await v1Send({ authorization: 'Bearer nope' });
    });
    expect(added({ surface: 'jsonrpc', method: 'SendMessage', outcome: 'ok', client: 'acme' })).toBe(1);
    expect(added({ surface: 'jsonrpc', method: 'SendMessage', outcome: 'ok', client: 'beta' })).toBe(1);
    expect(added({ surface: 'jsonrpc', method: 'SendMessage', outcome: 'ok', client: '' })).toBe(1);
    expect(added({ surface: 'v025', method: 'message/send', outcome: 'ok', client: 'bailian-prod' })).toBe(1);
    expect(added({ surface: 'v025', method: 'message/send', outcome: 'ok', client: '' })).toBe(1);
    expect(added({ outcome: 'error', error_code: 'http_401', client: '' })).toBe(1);
    const clients = new Set((await scrape(gateway.url)).filter((s) => s.name === REQUESTS).map((s) => s.labels.client));
    expect([...clients].sort()).toEqual(['', 'acme', 'bailian-prod', 'beta']);
  });
});

describe('gRPC', () => {
  it('a named token gives the call line `client` and the metric its label; an unnamed one neither', async () => {
    const transport = await grpcTransport(gateway, { authorization: 'Bearer tok-acme' });
    const logged = gateway.grpcLog().length;
    const added = await counted(async () => {
      await transport.sendMessage(sendRequest('named over grpc'), wire({ authorization: 'Bearer tok-acme' }));
      await transport.sendMessage(sendRequest('unnamed over grpc'), wire({ authorization: 'Bearer tok-plain' }));
    });
    const lines = gateway.grpcLog().slice(logged);
    expect(lines).toMatchObject([
      { method: 'SendMessage', client: 'acme' },
      { method: 'SendMessage', grpcStatus: 0 },
    ]);
    expect(lines[1]).not.toHaveProperty('client');
    expect(added({ surface: 'grpc', method: 'SendMessage', outcome: 'ok', client: 'acme' })).toBe(1);
    expect(added({ surface: 'grpc', method: 'SendMessage', outcome: 'ok', client: '' })).toBe(1);
  });
});

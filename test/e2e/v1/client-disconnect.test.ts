/**
 * A caller hanging up on a unary call through the real server (@hono/node-server): the gateway
 * notices from the Node response closing early and aborts the upstream call of a read at once, on the
 * JSON-RPC and the REST binding alike; a call that changes something (here a cancel) is carried on.
 * The upstream's whole-call bound is far away, so only the disconnect can end the upstream request
 * within the test. (A blocking SendMessage: caller-left-turn.test.ts.)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

let fake: FakeIacCode;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startFakeIacCode();
  // The cancel carried on hangs at the agent until the gateway's drain time is over.
  gateway = await startTestGateway({
    'drain-timeout-ms': 1_000,
    upstream: { url: fake.url, 'request-timeout-ms': 60_000, 'headers-timeout-ms': 60_000 },
  });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function hangUpDuring(method: 'GetTask' | 'CancelTask', send: (signal: AbortSignal) => Promise<unknown>): Promise<string> {
  fake.injectFault('hang-before-headers');
  const before = fake.rpcRequests(method).length;
  const caller = new AbortController();
  const sent = send(caller.signal).catch(() => undefined);
  const deadline = Date.now() + 5_000;
  while (fake.rpcRequests(method).length === before && Date.now() < deadline) await sleep(5);
  const upstreamCall = fake.rpcRequests(method)[before];
  expect(upstreamCall, 'the call reached the upstream').toBeDefined();
  caller.abort();
  await sent;
  return Promise.race([upstreamCall!.closed, sleep(method === 'GetTask' ? 3_000 : 500).then(() => 'still open')]);
}

describe('a caller hanging up on a unary call', () => {
  it('JSON-RPC: the upstream request is closed', async () => {
    const how = await hangUpDuring('GetTask', (signal) =>
      fetch(`${gateway.url}/`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'task-1' } }),
        signal,
      }),
    );
    expect(how).toBe('client-closed');
  });

  it('REST: the upstream request is closed', async () => {
    const how = await hangUpDuring('GetTask', (signal) => fetch(`${gateway.url}/tasks/task-1`, { headers: JSON_HEADERS, signal }));
    expect(how).toBe('client-closed');
  });

  it("the 0.2.5 facade's tasks/cancel is carried on too (its first step: reading the task)", async () => {
    const rpc = (body: unknown, signal?: AbortSignal) =>
      fetch(`${gateway.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    const message = { kind: 'message', role: 'user', messageId: 'm-facade', parts: [{ kind: 'text', text: 'hello' }] };
    const opened = (await (await rpc({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } })).json()) as { result: { id: string } };
    fake.injectFault('hang-before-headers', { method: 'GetTask' });
    const before = fake.rpcRequests('GetTask').length;
    const caller = new AbortController();
    const sent = rpc({ jsonrpc: '2.0', id: 2, method: 'tasks/cancel', params: { id: opened.result.id } }, caller.signal).catch(() => undefined);
    const deadline = Date.now() + 5_000;
    while (fake.rpcRequests('GetTask').length === before && Date.now() < deadline) await sleep(5);
    const upstreamCall = fake.rpcRequests('GetTask')[before];
    expect(upstreamCall, 'the cancel reached the upstream').toBeDefined();
    caller.abort();
    await sent;
    expect(await Promise.race([upstreamCall!.closed, sleep(500).then(() => 'still open')])).toBe('still open');
  });

  it('a cancel is carried on: the upstream CancelTask stays open for the agent to answer, until a shutdown ends it', async () => {
    const upstreamCall = () => fake.rpcRequests('CancelTask').at(-1)!;
    const how = await hangUpDuring('CancelTask', (signal) =>
      fetch(`${gateway.url}/tasks/task-1:cancel`, { method: 'POST', headers: JSON_HEADERS, body: '{}', signal }),
    );
    expect(how).toBe('still open');
    // No open request shows the call to the drain; it is waited for all the same, then ended, and the
    // gateway's close does not wait on the agent for ever.
    const closing = gateway.close();
    expect(await Promise.race([upstreamCall().closed, sleep(300).then(() => 'still open')])).toBe('still open');
    expect(await Promise.race([closing.then(() => 'closed'), sleep(5_000).then(() => 'still closing')])).toBe('closed');
    expect(await upstreamCall().closed).toBe('client-closed');
  });
});

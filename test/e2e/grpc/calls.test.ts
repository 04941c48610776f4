/**
 * What a gRPC caller's call does besides its payload: credentials from the metadata (the HTTP
 * bindings' schemes, principals and task isolation), and a cancelled stream or a passed deadline
 * ending the upstream call at once. The upstream's own bounds are far away in these tests, so only
 * the caller can end the upstream request in time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { status } from '@grpc/grpc-js';
import type { Transport } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_PREFIX } from '../../../src/demo-agent/index.js';
import { asTask, sendRequest } from '../../support/sdk-v1-client.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startDemoGateway, startTestGateway, type TestGateway } from '../../support/gateway.js';
import { grpcFailureOf, grpcTransport, wire } from './grpc-client.js';

describe('gRPC callers and gateway auth', () => {
  let gateway: TestGateway;
  let transport: Transport;
  const BEARER = { authorization: 'Bearer grpc-token' };
  const API_KEY = { 'x-api-key': 'grpc-key' };

  beforeAll(async () => {
    gateway = await startDemoGateway({ grpc: { port: 0 }, auth: { token: 'grpc-token', 'api-key': 'grpc-key' } });
    transport = await grpcTransport(gateway, BEARER);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each([
    ['no credentials', {}],
    ['a wrong token', { authorization: 'Bearer nope' }],
    ['the key in the wrong header', { 'x-other-key': 'grpc-key' }],
  ])('%s: UNAUTHENTICATED, for unary calls and streams alike', async (_name, metadata) => {
    const unary = await grpcFailureOf(transport.sendMessage(sendRequest('let me in'), wire(metadata)));
    expect(unary).toMatchObject({ status: status.UNAUTHENTICATED });
    expect(unary.message).toContain('Unauthorized');
    const stream = await grpcFailureOf(transport.sendMessageStream(sendRequest('let me in'), wire(metadata)));
    expect(stream).toMatchObject({ status: status.UNAUTHENTICATED });
    expect(gateway.grpcLog().filter((line) => line.grpcStatus === status.OK)).toEqual([]);
  });

  it('a bearer token or the API key is accepted; each principal sees only its own tasks', async () => {
    const mine = asTask(await transport.sendMessage(sendRequest('mine'), wire(BEARER)));
    expect((await transport.getTask({ tenant: '', id: mine.id, historyLength: undefined }, wire(BEARER))).id).toBe(mine.id);
    const other = await grpcFailureOf(transport.getTask({ tenant: '', id: mine.id, historyLength: undefined }, wire(API_KEY)));
    expect(other).toMatchObject({ status: status.NOT_FOUND, reason: 'TASK_NOT_FOUND' });
    const theirs = asTask(await transport.sendMessage(sendRequest('theirs'), wire(API_KEY)));
    const listed = await transport.listTasks(
      {
        tenant: '',
        contextId: '',
        status: 0,
        pageSize: 100,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      },
      wire(API_KEY),
    );
    expect(listed.tasks.map((task) => task.id)).toEqual([theirs.id]);

    // The same credentials over JSON-RPC see the task created over gRPC: one registry, one principal.
    const overHttp = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { ...BEARER, 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: mine.id } }),
    });
    expect(((await overHttp.json()) as { result?: { id: string } }).result?.id).toBe(mine.id);
  });
});

describe('a gRPC caller going away', () => {
  let fake: FakeIacCode;
  let gateway: TestGateway;

  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startTestGateway({
      grpc: { port: 0 },
      upstream: { url: fake.url, 'request-timeout-ms': 60_000, 'headers-timeout-ms': 60_000 },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  async function upstreamCallOf(method: string, before: number) {
    const deadline = Date.now() + 5_000;
    while (fake.rpcRequests(method).length === before && Date.now() < deadline) await sleep(5);
    const call = fake.rpcRequests(method)[before];
    expect(call, 'the call reached the upstream').toBeDefined();
    return Promise.race([call!.closed, sleep(3_000).then(() => 'still open')]);
  }

  it('cancelling a stream after its first event closes the upstream stream', async () => {
    fake.injectFault({ name: 'hang-mid-stream', after: 2 });
    const transport = await grpcTransport(gateway);
    const before = fake.rpcRequests('SendStreamingMessage').length;
    const caller = new AbortController();
    const stream = transport.sendMessageStream(sendRequest('hang on'), { ...wire(), signal: caller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    expect(fake.rpcRequests('SendStreamingMessage')[before]?.closedByClient).toBe(false);
    caller.abort();
    await iterator.return?.(undefined);
    expect(await upstreamCallOf('SendStreamingMessage', before)).toBe('client-closed');
  });

  it("the caller's a2a-extensions metadata reaches the upstream as the A2A-Extensions header", async () => {
    const transport = await grpcTransport(gateway);
    await transport
      .getTask({ tenant: '', id: 'task-x', historyLength: undefined }, wire({ 'a2a-extensions': 'urn:ext:one, urn:ext:two' }))
      .catch(() => undefined);
    expect(fake.rpcRequests('GetTask').at(-1)?.headers['a2a-extensions']).toBe('urn:ext:one, urn:ext:two');
  });

  it('a unary call whose deadline passes is DEADLINE_EXCEEDED, and its upstream request is closed', async () => {
    fake.injectFault('hang-before-headers');
    const before = fake.rpcRequests('GetTask').length;
    const transport = await grpcTransport(gateway, {}, { deadline: Date.now() + 500 });
    const failure = grpcFailureOf(transport.getTask({ tenant: '', id: 'task-1', historyLength: undefined }, wire()));
    expect(await upstreamCallOf('GetTask', before)).toBe('client-closed');
    expect(await failure).toMatchObject({ status: status.DEADLINE_EXCEEDED });
  });
});

describe('a gRPC stream open at shutdown', () => {
  it('ends with INTERNAL, naming the task that goes on at the agent, once the drain time is over (e2e/v1/drain-cut-stream.test.ts)', async () => {
    const gateway = await startDemoGateway({ grpc: { port: 0 }, 'drain-timeout-ms': 200 });
    const transport = await grpcTransport(gateway);
    const stream = transport.sendMessageStream(sendRequest(`${SLOW_PREFIX} outlive the gateway`), wire());
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    const taskId = first.value?.payload?.$case === 'task' ? first.value.payload.value.id : 'the first event is no task';
    const closed = gateway.close();
    let failure: unknown;
    try {
      while (!(await iterator.next()).done);
    } catch (error) {
      failure = error;
    }
    await closed;
    expect(failure).toMatchObject({ status: status.INTERNAL, message: expect.stringContaining(`but task ${taskId} goes on at the agent`) });
  });
});

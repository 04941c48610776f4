/**
 * The gRPC upstream client under faults, through the real gateway and its JSON-RPC surface: a caller
 * hanging up cancels the upstream stream, the gateway's bounds cancel a hanging agent, and the
 * agent's statuses (with or without ErrorInfo) become the caller's A2A errors, scrubbed of secrets
 * and paths. The agent advertises a wildcard address, reached at the host its card came from.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Metadata, status } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN, encodeGrpcStatusDetails } from 'a2a-sdk-1/errors/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { createGrpcUpstream } from '../../../src/upstream/v1/grpc-client.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { waitUntil } from '../../support/wait-until.js';
import { startFakeGrpcAgent, type FakeGrpcAgent } from './fake-grpc-agent.js';

let agent: FakeGrpcAgent;
let gateway: TestGateway;

beforeAll(async () => {
  agent = await startFakeGrpcAgent();
  // The default bounds: these calls are to be answered on a loaded host too. The bounds' own cases have a gateway of their own.
  gateway = await startTestGateway({ upstream: { url: agent.url, auth: { token: 'upstream-secret' } } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

function rpc(method: string, params: unknown, signal?: AbortSignal, front: TestGateway = gateway): Promise<Response> {
  return fetch(`${front.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    ...(signal ? { signal } : {}),
  });
}

const message = { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };

async function rpcError(method: string, params: unknown, front?: TestGateway): Promise<{ code: number; message: string; data?: unknown }> {
  const body = (await (await rpc(method, params, undefined, front)).json()) as { error?: { code: number; message: string } };
  expect(body.error, JSON.stringify(body)).toBeDefined();
  return body.error!;
}

/**
 * Whether a GetTask through `front` is answered with the task. A gateway's first call pays the protocol detection, the card
 * and the gRPC channel's first connection within its bounds, which on a loaded host (a process given a tenth of a CPU) take
 * more than a few hundred ms: a gateway with bounds that short is asked until it answers before its tests time an agent out.
 */
const answersGetTask = async (front: TestGateway): Promise<boolean> =>
  ((await (await rpc('GetTask', { id: 'task-1' }, undefined, front)).json()) as { result?: { id: string } }).result?.id === 'task-1';

const ended = (index: number) => Promise.race([agent.calls[index]!.ended, sleep(3_000).then(() => 'still open')]);

describe('the gRPC upstream client', () => {
  it('answers through the gateway, with the credentials, version and extensions as metadata (the wildcard address reached at the card host)', async () => {
    agent.behave = { kind: 'task' };
    const response = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': 'urn:ext:one' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'task-1' } }),
    });
    const body = (await response.json()) as { result?: { id: string } };
    expect(body.result?.id).toBe('task-1');
    expect(agent.calls.at(-1)).toMatchObject({
      method: 'getTask',
      metadata: { authorization: 'Bearer upstream-secret', 'a2a-version': '1.0', 'a2a-extensions': 'urn:ext:one' },
    });
  });

  it("carries the caller's W3C trace context as metadata", async () => {
    agent.behave = { kind: 'task' };
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const response = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', traceparent, tracestate: 'vendor=1' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'task-1' } }),
    });
    expect(response.status).toBe(200);
    await response.json();
    expect(agent.calls.at(-1)?.metadata).toMatchObject({ traceparent, tracestate: 'vendor=1' });
  });

  it('a caller hanging up on an SSE stream cancels the upstream gRPC stream', async () => {
    agent.behave = { kind: 'stream-then-hang', events: 1 };
    const before = agent.calls.length;
    const caller = new AbortController();
    const response = await rpc('SendStreamingMessage', message, caller.signal);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('task-1');
    expect(agent.calls.length).toBe(before + 1);
    caller.abort();
    expect(await ended(before)).toBe('cancelled');
  });

  describe("with 400 ms bounds, the gateway's bounds cancel a hanging agent", () => {
    let bounded: TestGateway;
    beforeAll(async () => {
      bounded = await startTestGateway({ upstream: { url: agent.url, 'request-timeout-ms': 400, 'headers-timeout-ms': 400 } });
      // So that below only the agent's silence times out (answersGetTask).
      agent.behave = { kind: 'task' };
      await waitUntil(() => answersGetTask(bounded), 15_000);
    });
    afterAll(async () => {
      await bounded?.close();
    });

    it('a hanging unary call is cut at request-timeout-ms: "timed out", and the upstream call is cancelled', async () => {
      agent.behave = { kind: 'hang' };
      const before = agent.calls.length;
      expect(await rpcError('GetTask', { id: 'task-1' }, bounded)).toMatchObject({ code: -32603, message: 'Upstream agent timed out' });
      expect(await ended(before)).toBe('cancelled');
    });

    it('a stream that never answers is cut at headers-timeout-ms', async () => {
      agent.behave = { kind: 'hang' };
      const before = agent.calls.length;
      expect(await rpcError('SendStreamingMessage', message, bounded)).toMatchObject({ code: -32603, message: 'Upstream agent timed out' });
      expect(await ended(before)).toBe('cancelled');
    });
  });

  it("a status with ErrorInfo becomes the reason's A2A error; its text is scrubbed of secrets and paths", async () => {
    const text = 'cannot cancel: Bearer upstream-secret at /srv/agent/tasks.py';
    const metadata = new Metadata();
    metadata.set(GRPC_STATUS_DETAILS_BIN, encodeGrpcStatusDetails(status.FAILED_PRECONDITION, text, 'TASK_NOT_CANCELABLE', { taskId: 'task-1' }));
    agent.behave = { kind: 'fail', code: status.FAILED_PRECONDITION, details: text, metadata };
    const error = await rpcError('CancelTask', { id: 'task-1' });
    expect(error.code).toBe(-32002);
    expect(error.message).not.toContain('upstream-secret');
    expect(error.message).not.toContain('/srv/agent');
    expect(error.data).toEqual([expect.objectContaining({ reason: 'TASK_NOT_CANCELABLE', metadata: { taskId: 'task-1' } })]);
  });

  it.each([
    [status.UNIMPLEMENTED, 'Method not implemented', -32004],
    [status.NOT_FOUND, 'no such task', -32001],
    [status.INVALID_ARGUMENT, 'bad request', -32602],
    [status.UNKNOWN, 'Traceback (most recent call last):\n  File "/srv/x.py"', -32603],
  ])('a bare status %i (no ErrorInfo) becomes the nearest A2A error', async (code, details, expected) => {
    agent.behave = { kind: 'fail', code, details };
    // A task the gateway never recorded: one it did is answered from its record when the agent says not found.
    const error = await rpcError('GetTask', { id: 'task-unrecorded' });
    expect(error.code).toBe(expected);
    expect(error.message).not.toContain('/srv/');
    const streamed = await rpcError('SubscribeToTask', { id: 'task-unrecorded' });
    expect(streamed.code).toBe(expected);
  });

  it.each([
    [status.UNAUTHENTICATED, 401],
    [status.PERMISSION_DENIED, 403],
  ])("a status %i (the gateway credentials refused) reads as an HTTP %i does: the agent is unavailable, why is the log's", async (code) => {
    agent.behave = { kind: 'fail', code, details: 'token upstream-secret rejected' };
    for (const method of ['GetTask', 'SubscribeToTask']) {
      // The words a 1.0 caller reads of an HTTP 401 agent (e2e/facade/upstream-credentials-refused.test.ts): no agent text.
      expect(await rpcError(method, { id: 'task-unrecorded' }), method).toStrictEqual({ code: -32603, message: 'Upstream agent is unavailable' });
      const line = gateway.requestLog().findLast((one) => one.method === method);
      expect(line?.cause, method).toMatch(/refused the gateway's credentials \(gRPC [A-Z_]+; upstream\.auth\)/);
      expect(line?.cause, method).not.toContain('upstream-secret');
    }
  });
});

describe('a gRPC agent that never answers, with the whole-call bound off', () => {
  let silent: FakeGrpcAgent;
  let front: TestGateway;
  beforeAll(async () => {
    silent = await startFakeGrpcAgent();
    // A short drain: the last test's shutdown gives the call it outlived that long before it ends it (10 s by default).
    front = await startTestGateway({ upstream: { url: silent.url, 'request-timeout-ms': 0, 'headers-timeout-ms': 300 }, 'drain-timeout-ms': 1_000 });
    // Before the agent falls silent (answersGetTask).
    await waitUntil(() => answersGetTask(front), 15_000);
    silent.behave = { kind: 'hang' };
  });
  afterAll(async () => {
    await front?.close();
    await silent?.close();
  });

  const post = (method: string, params: unknown, signal?: AbortSignal): Promise<Response> =>
    fetch(`${front.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      ...(signal ? { signal } : {}),
    });

  it('GetTask is still cut at headers-timeout-ms (an agent answers it at once), as on JSON-RPC', async () => {
    const response = await post('GetTask', { id: 'task-1' });
    expect(((await response.json()) as { error?: unknown }).error).toMatchObject({ code: -32603, message: 'Upstream agent timed out' });
    const call = silent.calls.findLast((one) => one.method === 'getTask');
    expect(await Promise.race([call!.ended, sleep(3_000).then(() => 'still open')])).toBe('cancelled');
  });

  it('SendMessage is not (its answer may come only at the turn end): it runs on past its caller until the gateway shuts down', async () => {
    const caller = new AbortController();
    const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
    const answer = post('SendMessage', { message }, caller.signal).catch(() => 'hung up');
    await waitUntil(async () => silent.calls.some((one) => one.method === 'sendMessage'));
    const call = silent.calls.find((one) => one.method === 'sendMessage')!;
    // Well past the 300 ms headers bound (armed on ~0.5 s ticks): still waiting for the agent.
    expect(await Promise.race([call.ended, sleep(1_500).then(() => 'still open')])).toBe('still open');
    caller.abort();
    expect(await answer).toBe('hung up');
    expect(await Promise.race([call.ended, sleep(1_000).then(() => 'still open')])).toBe('still open');
    await front.close();
    expect(await Promise.race([call.ended, sleep(3_000).then(() => 'still open')])).toBe('cancelled');
  });
});

describe('a card refresh that names another gRPC address', () => {
  it('moves the calls there', async () => {
    const second = await startFakeGrpcAgent();
    const upstream = createGrpcUpstream({ baseUrl: agent.url, config: UpstreamConfig.parse({}) });
    const ctx = { principal: '', signal: new AbortController().signal };
    try {
      agent.behave = { kind: 'task' };
      await upstream.fetchCard();
      const onFirst = agent.calls.length;
      await upstream.getTask({ id: 'task-1' }, ctx);
      expect(agent.calls.length).toBe(onFirst + 1);

      agent.advertised = second.grpcAddress;
      await upstream.fetchCard();
      await upstream.getTask({ id: 'task-1' }, ctx);
      expect(agent.calls.length).toBe(onFirst + 1);
      expect(second.calls.map((call) => call.method)).toEqual(['getTask']);
    } finally {
      agent.advertised = `0.0.0.0:${agent.grpcAddress.split(':')[1]}`;
      await upstream.close();
      await second.close();
    }
  });
});

describe('a gRPC agent that is gone', () => {
  it('calls fail with "Upstream agent is unavailable", and the gateway keeps serving', async () => {
    const gone = await startFakeGrpcAgent();
    const front = await startTestGateway({ upstream: { url: gone.url } });
    try {
      await gone.close();
      const response = await fetch(`${front.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'task-1' } }),
      });
      const body = (await response.json()) as { error?: { code: number; message: string } };
      expect(body.error).toMatchObject({ code: -32603, message: 'Upstream agent is unavailable' });
      expect((await fetch(`${front.url}/health`)).status).toBe(200);
    } finally {
      await front.close();
    }
  });
});

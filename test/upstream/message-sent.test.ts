/**
 * CallContext.onMessageSent: told once the request carrying the caller's message has left for the agent, never
 * while it waits for one of the pool's connections, nor when the agent refuses the connection, nor for the
 * context's other calls. What the 0.2.5 facade tells a user whose turn a shutdown cut rests on it (cut-turns.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { callJsonRpc, createJsonRpcTransport, type JsonRpcTransport } from '../../src/upstream/jsonrpc-client.js';
import { callRest, V1_REST_WIRE } from '../../src/upstream/rest-wire.js';
import { createGrpcUpstream } from '../../src/upstream/v1/grpc-client.js';
import { V1_UNARY_METHODS } from '../../src/upstream/v1/methods.js';
import { waitUntil } from '../support/wait-until.js';
import { startFakeGrpcAgent } from '../e2e/grpc/fake-grpc-agent.js';

const TASK = { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } };
const MESSAGE = { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '确认' }] } };

/** An agent that answers every request with a task, but holds one whose body says "hold" until released. */
let server: Server;
let url = '';
const received: string[] = [];
let release = (): void => undefined;
const bodyOf = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
  });

beforeAll(async () => {
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const text = await bodyOf(request);
    received.push(text);
    if (text.includes('hold')) await new Promise<void>((resolve) => (release = resolve));
    const id = text ? (JSON.parse(text) as { id?: unknown }).id : undefined;
    const result = text.includes('GetTask') ? TASK : { task: TASK };
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(id === undefined ? TASK : { jsonrpc: '2.0', id, result }));
  };
  server = createServer((request, response) => void answer(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  release();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const transportOf = (config: Record<string, unknown>): JsonRpcTransport & { close(): Promise<void> } =>
  createJsonRpcTransport(UpstreamConfig.parse(config));

describe('over JSON-RPC', () => {
  it('a message queued behind the one connection is told sent only once the agent gets it; a GetTask never', async () => {
    const transport = transportOf({ connections: 1 });
    const told: string[] = [];
    const ctx = (name: string) => ({ signal: new AbortController().signal, onMessageSent: () => told.push(name) });
    try {
      const held = callJsonRpc(
        { transport, endpoint: url, method: 'GetTask', params: { id: 'hold' }, ctx: ctx('GetTask') },
        V1_UNARY_METHODS.getTask,
      );
      await waitUntil(async () => received.some((text) => text.includes('hold')));
      const queued = callJsonRpc(
        { transport, endpoint: url, method: 'SendMessage', params: MESSAGE, ctx: ctx('SendMessage') },
        V1_UNARY_METHODS.sendMessage,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(told).toEqual([]);
      release();
      await Promise.all([held, queued]);
      expect(told).toEqual(['SendMessage']);
      expect(received.at(-1)).toContain('确认');
    } finally {
      await transport.close();
    }
  });

  it('a message whose agent refuses the connection is never told sent', async () => {
    const transport = transportOf({});
    let told = 0;
    const ctx = { signal: new AbortController().signal, onMessageSent: () => told++ };
    await expect(
      callJsonRpc({ transport, endpoint: 'http://127.0.0.1:1/', method: 'message/send', params: MESSAGE, ctx }, V1_UNARY_METHODS.sendMessage),
    ).rejects.toThrow('Upstream agent is unavailable');
    expect(told).toBe(0);
    await transport.close();
  });
});

describe('over HTTP+JSON', () => {
  it('a message:send is told sent, a task read is not', async () => {
    const transport = transportOf({});
    const told: string[] = [];
    const call = (path: string, method: 'GET' | 'POST', body?: unknown) =>
      callRest({
        wire: V1_REST_WIRE,
        transport,
        method,
        url: `${url}${path}`,
        ...(body ? { body } : {}),
        ctx: { signal: new AbortController().signal, onMessageSent: () => told.push(path) },
        errors: { notFound: () => new Error('not found') } as never,
      });
    try {
      await call('/tasks/task-1', 'GET');
      await call('/tasks/task-1:cancel', 'POST', {});
      await call('/message:send', 'POST', MESSAGE);
      expect(told).toEqual(['/message:send']);
      expect(received.at(-1)).toContain('确认');
    } finally {
      await transport.close();
    }
  });
});

describe('over gRPC (sent once the call is made, unless the agent could not be reached)', () => {
  it('a message is told sent, also when cut before any answer; a GetTask is not, and neither is a message to an agent that is gone', async () => {
    const agent = await startFakeGrpcAgent();
    const upstream = createGrpcUpstream({ baseUrl: agent.url, config: UpstreamConfig.parse({}) });
    const told: string[] = [];
    const send = async (name: string, signal = new AbortController().signal): Promise<void> => {
      const request = { message: { messageId: name, role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } };
      for await (const _event of upstream.sendStreamingMessage(request, { principal: '', signal, onMessageSent: () => told.push(name) }));
    };
    try {
      agent.behave = { kind: 'task' };
      await upstream.fetchCard();
      await upstream.getTask({ id: 'task-1' }, { principal: '', signal: new AbortController().signal, onMessageSent: () => told.push('getTask') });
      await send('answered');
      agent.behave = { kind: 'hang' };
      const cut = new AbortController();
      const cutting = send('cut', cut.signal).catch(() => undefined);
      await waitUntil(async () => agent.calls.length === 3);
      cut.abort();
      await cutting;
      expect(told).toEqual(['answered', 'cut']);
      await agent.close();
      // Once the channel has seen its connection go: a call made on the dying connection may have reached it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(send('gone')).rejects.toThrow('Upstream agent is unavailable');
      expect(told).toEqual(['answered', 'cut']);
    } finally {
      await upstream.close();
      await agent.close();
    }
  });
});

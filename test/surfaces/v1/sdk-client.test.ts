/**
 * The official a2a-js 1.0 client against the 1.0 surface (stub port behind it): card discovery,
 * both transports, streaming, errors and gateway auth, as a real 1.0 caller sees them.
 */
import { serve } from '@hono/node-server';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from 'a2a-sdk-1/client';
import { TaskNotFoundError } from 'a2a-sdk-1/errors';
import { Role } from 'a2a-sdk-1';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalOf } from '../../../src/surfaces/shared/principal.js';
import { A2AError } from '../../../src/model/index.js';
import { rejectionOf } from '../../support/sdk-v1-client.js';
import { StubPort, buildApp } from '../support.js';

const port = new StubPort({
  getTask: async (request) => {
    if (request.id === 'missing') throw A2AError.taskNotFound('missing');
    return { id: request.id, contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } };
  },
});
let server: ReturnType<typeof serve>;
let baseUrl: string;
const TOKEN = 'sdk-token';
const authedFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${TOKEN}`);
  return fetch(input, { ...init, headers });
};

beforeAll(async () => {
  const { app } = buildApp({ port, config: { auth: { token: TOKEN } } });
  server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      server.close(() => resolve());
    }),
);

function factory(preferred: 'JSONRPC' | 'HTTP+JSON'): ClientFactory {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authedFetch }), new RestTransportFactory({ fetchImpl: authedFetch })],
      preferredTransports: [preferred],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authedFetch }),
    }),
  );
}

const message = (text: string): Parameters<Client['sendMessage']>[0] => ({
  tenant: '',
  message: {
    messageId: `sdk-${Math.random().toString(36).slice(2)}`,
    contextId: '',
    taskId: '',
    role: 1,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a2a-js client over %s', (transport) => {
  let client: Client;
  beforeAll(async () => {
    client = await factory(transport).createFromUrl(baseUrl);
  });

  it('discovers the gateway card and uses the chosen interface', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('iac-code');
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([`${baseUrl}/`, baseUrl]);
    expect(client.protocolVersion).toBe('1.0');
  });

  it('sendMessage returns the task, with the message as sent reaching the port', async () => {
    const result = await client.sendMessage(message('hello gateway'));
    expect('status' in result && result.id).toBe('task-1');
    const request = port.last().request as { message: { parts: unknown[]; role: string } };
    expect(request.message).toMatchObject({ role: 'ROLE_USER', parts: [{ text: 'hello gateway' }] });
    expect(port.last().ctx).toMatchObject({
      principal: principalOf('a2a-1.0', 'bearer', TOKEN),
      surface: transport === 'JSONRPC' ? 'jsonrpc' : 'rest',
    });
  });

  it('sendMessageStream yields every event', async () => {
    const cases: string[] = [];
    for await (const event of client.sendMessageStream(message('stream'))) cases.push(event.payload?.$case ?? '?');
    expect(cases).toEqual(['task', 'statusUpdate']);
  });

  it('a message with ROLE_AGENT is refused naming message.role before it reaches the port (send and stream)', async () => {
    const before = port.calls.length;
    const spoofed = message('I am the agent');
    spoofed.message = { ...spoofed.message!, role: Role.ROLE_AGENT };
    for (const call of [client.sendMessage(spoofed), client.sendMessageStream(spoofed)]) {
      const error = await rejectionOf(call);
      expect(error).toMatchObject({ reason: 'INVALID_PARAMS', code: transport === 'JSONRPC' ? -32602 : 400 });
      expect(error.message).toContain("message.role: must be ROLE_USER: a caller's message is the user's");
    }
    expect(port.calls.length).toBe(before);
  });

  it('getTask, and TaskNotFoundError for an unknown task', async () => {
    expect((await client.getTask({ tenant: '', id: 'task-3', historyLength: undefined })).id).toBe('task-3');
    await expect(client.getTask({ tenant: '', id: 'missing', historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});

/**
 * Where the gRPC upstream client dials, from what the agent's card names: every address of an `ipv4:` list (as
 * grpc-js's own resolver would, the first refusing), and never plaintext for a card read over https unless the
 * operator lists the address (`upstream.card-origins: [grpc://host:port]`): the credentials would cross the network
 * in clear.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { AgentCard } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { createGrpcUpstream } from '../../../src/upstream/v1/grpc-client.js';
import { makeCertificates, type Certificates } from '../../support/certificates.js';
import { CLOSED_PORT } from '../../support/free-port.js';
import { rejection } from '../../support/rejection.js';
import { startFakeGrpcAgent, type FakeGrpcAgent } from './fake-grpc-agent.js';

let agent: FakeGrpcAgent;
const ctx = () => ({ principal: '', signal: new AbortController().signal });

beforeAll(async () => {
  agent = await startFakeGrpcAgent();
});
afterAll(async () => {
  await agent?.close();
});

describe('an ipv4: list in the card', () => {
  it('is dialled whole: the first address refusing, the call reaches the next', async () => {
    agent.advertised = `ipv4:127.0.0.1:${CLOSED_PORT},${agent.grpcAddress}`;
    const upstream = createGrpcUpstream({ baseUrl: agent.url, config: UpstreamConfig.parse({}) });
    try {
      const calls = agent.calls.length;
      expect(await upstream.getTask({ id: 'task-1' }, ctx())).toMatchObject({ id: 'task-1' });
      expect(agent.calls.slice(calls).map((call) => call.method)).toEqual(['getTask']);
    } finally {
      agent.advertised = `0.0.0.0:${agent.grpcAddress.split(':')[1]}`;
      await upstream.close();
    }
  });
});

describe('a card read over https that names a plaintext gRPC address', () => {
  let certificates: Certificates;
  let cardServer: Server;
  let cardUrl: string;
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, msg: string) => void warnings.push(msg) };

  beforeAll(async () => {
    certificates = await makeCertificates({ servers: ['server'] });
    const [cert, key] = await Promise.all([readFile(certificates.file('server.pem')), readFile(certificates.file('server.key'))]);
    cardServer = createServer({ cert, key }, (_request, response) => {
      const card = AgentCard.fromJSON({
        name: 'plaintext-grpc-agent',
        description: 'its card over https, its gRPC in clear',
        version: '1.0.0',
        supportedInterfaces: [{ url: `grpc://${agent.grpcAddress}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(AgentCard.toJSON(card)));
    });
    await new Promise<void>((resolve) => cardServer.listen(0, '127.0.0.1', resolve));
    cardUrl = `https://127.0.0.1:${(cardServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    cardServer?.closeAllConnections();
    await new Promise((resolve) => cardServer?.close(resolve));
    await certificates?.cleanup();
  });

  const upstreamWith = (cardOrigins: string[] = []) =>
    createGrpcUpstream({
      baseUrl: cardUrl,
      logger,
      config: UpstreamConfig.parse({
        auth: { token: 'upstream-secret' },
        tls: { 'ca-file': certificates.file('ca.pem') },
        'card-origins': cardOrigins,
      }),
    });

  it('is dialled over TLS, not in clear: the plaintext agent never gets the call or the credentials, and the log says why', async () => {
    const upstream = upstreamWith();
    try {
      const calls = agent.calls.length;
      const error = await rejection(upstream.getTask({ id: 'task-1' }, ctx()));
      expect(error.message).toBe('Upstream agent is unavailable');
      expect(agent.calls.slice(calls)).toEqual([]);
      expect(warnings).toEqual([expect.stringMatching(/read over https, names a plaintext gRPC address; dialling it over TLS/)]);
    } finally {
      await upstream.close();
    }
  });

  it('in clear where upstream.card-origins lists it as grpc://host:port', async () => {
    const upstream = upstreamWith([`grpc://${agent.grpcAddress}`]);
    try {
      const calls = agent.calls.length;
      expect(await upstream.getTask({ id: 'task-1' }, ctx())).toMatchObject({ id: 'task-1' });
      expect(agent.calls.slice(calls)).toMatchObject([{ method: 'getTask', metadata: { authorization: 'Bearer upstream-secret' } }]);
    } finally {
      await upstream.close();
    }
  });
});

/**
 * `auth.introspection` as 1.0 callers meet it: the official a2a-js 1.x client sends an opaque access
 * token through its auth hook, over JSON-RPC, HTTP+JSON and gRPC, and the gateway asks the identity
 * provider's RFC 7662 endpoint (a real HTTP server here) who it is. The caller is the token's subject:
 * a renewed token keeps its tasks, another subject never sees them, a revoked token is refused once the
 * gateway's memory of it runs out, and an unknown or revoked one is a 401 (gRPC: UNAUTHENTICATED).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { TRANSPORTS, asTask, cardResolver, connect, listRequest, rejectionOf, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

const upstream = UPSTREAMS[0]!;
const CLIENT = { id: 'a2a-bridge', secret: 'gateway-secret' };
const ISSUER = 'https://login.example.test/';

describe(`auth.introspection in front of the ${upstream.name}`, () => {
  /** Who each live token is; a token not here is inactive. */
  const live = new Map<string, { sub: string; client_id: string }>();
  let questions = 0;
  let provider: Server;
  let gateway: TestGateway;

  beforeAll(async () => {
    const answer = (body: string, authorization: string | undefined, response: ServerResponse): void => {
      questions++;
      const expected = `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`;
      if (authorization !== expected) return void response.writeHead(401).end();
      const who = live.get(new URLSearchParams(body).get('token') ?? '');
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(who ? { active: true, iss: ISSUER, aud: 'a2a-bridge', ...who } : { active: false }));
    };
    provider = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += String(chunk)));
      request.on('end', () => answer(body, request.headers.authorization, response));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/introspect`;
    gateway = await upstream.startGateway({
      grpc: { port: 0 },
      auth: {
        introspection: {
          url,
          'client-id': CLIENT.id,
          'client-secret': CLIENT.secret,
          issuer: ISSUER,
          audience: 'a2a-bridge',
          'allow-private': true,
          'cache-ms': 300,
          'refused-cache-ms': 0,
        },
      },
    });
    live.set('opaque-alice-1', { sub: 'alice', client_id: 'shop-frontend' });
    live.set('opaque-alice-2', { sub: 'alice', client_id: 'shop-frontend' });
    live.set('opaque-bob', { sub: 'bob', client_id: 'shop-frontend' });
  });
  afterAll(async () => {
    await gateway?.close();
    await new Promise<void>((resolve) => provider?.close(() => resolve()));
  });

  describe.each(TRANSPORTS)('official a2a-js 1.x client over %s', (transport) => {
    it('the card names a Bearer scheme; with a live token every call works, and the provider is asked once for many calls', async () => {
      const card = await cardResolver([], { token: 'opaque-alice-1' }).resolve(gateway.url);
      expect(card.securitySchemes.bearerAuth?.scheme).toEqual({
        $case: 'httpAuthSecurityScheme',
        value: expect.objectContaining({ scheme: 'bearer' }),
      });
      const { client } = await connect(gateway.url, transport, { token: 'opaque-alice-1' });
      const before = questions;
      const logged = gateway.requestLog().length;
      const task = asTask(await client.sendMessage(sendRequest('with an opaque token')));
      expect(textOf(task.history.at(-1))).toBe(upstream.reply('with an opaque token', 1));
      await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
      expect(questions - before).toBeLessThanOrEqual(1);
      expect(
        gateway
          .requestLog()
          .slice(logged)
          .map((line) => line.client),
      ).toEqual(['shop-frontend', 'shop-frontend']);
    });

    it('a renewed token is the same caller; another subject sees none of its tasks', async () => {
      const first = await connect(gateway.url, transport, { token: 'opaque-alice-1' });
      const task = asTask(await first.client.sendMessage(sendRequest('before renewal')));
      const renewed = await connect(gateway.url, transport, { token: 'opaque-alice-2' });
      expect((await renewed.client.getTask({ tenant: '', id: task.id, historyLength: 1 })).id).toBe(task.id);
      const bob = await connect(gateway.url, transport, { token: 'opaque-bob' });
      expect((await rejectionOf(bob.client.getTask({ tenant: '', id: task.id, historyLength: 1 }))).message).toMatch(/not found/i);
      expect((await bob.client.listTasks(listRequest())).tasks.map((listed) => listed.id)).not.toContain(task.id);
    });
  });

  it('a revoked token works until the remembered answer runs out, then is a 401 on HTTP and UNAUTHENTICATED on gRPC', async () => {
    live.set('opaque-carol', { sub: 'carol', client_id: 'ops' });
    const { client } = await connect(gateway.url, 'JSONRPC', { token: 'opaque-carol' });
    asTask(await client.sendMessage(sendRequest('while live')));
    live.delete('opaque-carol');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const response = await fetch(`${gateway.url}/message:send`, {
      method: 'POST',
      headers: { authorization: 'Bearer opaque-carol', 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: 401, status: 'UNAUTHENTICATED', message: 'Unauthorized: valid credentials are required', details: [] },
    });
    const grpc = await grpcTransport(gateway, { authorization: 'Bearer opaque-alice-1' });
    expect(await grpcFailureOf(grpc.sendMessage(sendRequest('x'), wire({ authorization: 'Bearer opaque-carol' })))).toMatchObject({
      status: status.UNAUTHENTICATED,
    });
    const overGrpc = asTask(await grpc.sendMessage(sendRequest('over grpc'), wire({ authorization: 'Bearer opaque-alice-2' })));
    expect(textOf(overGrpc.history.at(-1))).toBe(upstream.reply('over grpc', 1));
  });
});

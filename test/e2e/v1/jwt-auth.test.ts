/**
 * `auth.jwt` as 1.0 callers meet it: the official a2a-js 1.x client sends a JSON Web Token from an
 * identity provider (a JWKS served over HTTP, ES256 keys) through its auth hook, over JSON-RPC,
 * HTTP+JSON and gRPC. The caller is the token's subject: a client keeps its tasks when its token is
 * renewed, another subject never sees them, and every bad token is a 401 (gRPC: UNAUTHENTICATED).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { status } from '@grpc/grpc-js';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import {
  TRANSPORTS,
  asTask,
  cardResolver,
  collect,
  connect,
  listRequest,
  outline,
  rejectionOf,
  sendRequest,
  textOf,
} from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';
import { grpcFailureOf, grpcTransport, wire } from '../grpc/grpc-client.js';

const ISSUER = 'https://login.example.test/';
const AUDIENCE = 'iac-gateway';
const upstream = UPSTREAMS[0]!;

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
}

async function esKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

function token(key: Key, claims: Record<string, unknown> = {}, expiresIn = '10m', issuer = ISSUER): Promise<string> {
  return new SignJWT({ sub: 'alice', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.jwk.kid! })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setJti(`${Math.random()}`)
    .setExpirationTime(expiresIn)
    .sign(key.privateKey);
}

describe(`auth.jwt in front of the ${upstream.name}`, () => {
  let provider: Server;
  let gateway: TestGateway;
  let signing: Key;
  let impostor: Key;
  let alice: string;
  let providerUrl: string;

  beforeAll(async () => {
    [signing, impostor] = await Promise.all([esKey('login-1'), esKey('login-1')]);
    provider = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/.well-known/openid-configuration') response.end(JSON.stringify({ issuer: providerUrl, jwks_uri: `${providerUrl}/keys` }));
      else response.end(JSON.stringify({ keys: [signing.jwk] }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    const jwksUrl = `${providerUrl}/keys`;
    gateway = await upstream.startGateway({
      grpc: { port: 0 },
      auth: { jwt: { issuer: ISSUER, audience: AUDIENCE, 'jwks-url': jwksUrl, 'jwks-allow-private': true } },
    });
    alice = await token(signing, { azp: 'shop-frontend' });
  });
  afterAll(async () => {
    await gateway?.close();
    await new Promise<void>((resolve) => provider?.close(() => resolve()));
  });

  describe.each(TRANSPORTS)('official a2a-js 1.x client over %s', (transport) => {
    it('the card names a Bearer JWT scheme; with a token every call works and the log names the client', async () => {
      const card = await cardResolver([], { token: alice }).resolve(gateway.url);
      expect(card.securitySchemes.jwtAuth?.scheme).toEqual({
        $case: 'httpAuthSecurityScheme',
        value: expect.objectContaining({ scheme: 'bearer', bearerFormat: 'JWT' }),
      });
      const { client } = await connect(gateway.url, transport, { token: alice });
      const logged = gateway.requestLog().length;
      const task = asTask(await client.sendMessage(sendRequest('with a token')));
      expect(textOf(task.history.at(-1))).toBe(upstream.reply('with a token', 1));
      const streamed = await collect(client.sendMessageStream(sendRequest('with a token, streaming')));
      expect(streamed.map(outline)).toEqual(upstream.streamOutline('with a token, streaming', 1));
      const lines = gateway.requestLog().slice(logged);
      expect(lines.map((line) => [line.status, line.client])).toEqual([
        [200, 'shop-frontend'],
        [200, 'shop-frontend'],
      ]);
    });

    it('a renewed token is the same caller; another subject sees none of its tasks', async () => {
      const first = await connect(gateway.url, transport, { token: await token(signing) });
      const task = asTask(await first.client.sendMessage(sendRequest('before renewal')));
      const renewed = await connect(gateway.url, transport, { token: await token(signing) });
      expect((await renewed.client.getTask({ tenant: '', id: task.id, historyLength: 1 })).id).toBe(task.id);
      expect((await renewed.client.listTasks(listRequest())).tasks.map((listed) => listed.id)).toContain(task.id);

      const bob = await connect(gateway.url, transport, { token: await token(signing, { sub: 'bob' }) });
      const refused = await rejectionOf(bob.client.getTask({ tenant: '', id: task.id, historyLength: 1 }));
      expect(refused.message).toMatch(/not found/i);
      expect((await bob.client.listTasks(listRequest())).tasks.map((listed) => listed.id)).not.toContain(task.id);
    });
  });

  const badTokens: [string, () => Promise<string>][] = [
    ['an expired token', () => token(signing, {}, '-5m')],
    [
      'a token for another audience',
      () =>
        new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'ES256', kid: 'login-1' })
          .setIssuer(ISSUER)
          .setAudience('other')
          .setExpirationTime('10m')
          .sign(signing.privateKey),
    ],
    ['a token signed by another key under the provider kid', () => token(impostor)],
    ['an unsigned token', async () => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${(await token(signing)).split('.')[1]}.`],
    [
      'a token signed with the public key as an HMAC secret',
      () =>
        new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'HS256', kid: 'login-1' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('10m')
          .sign(new TextEncoder().encode(JSON.stringify(signing.jwk))),
    ],
  ];

  it.each(badTokens)('%s: 401 on JSON-RPC and HTTP+JSON, UNAUTHENTICATED on gRPC, the agent never called', async (_name, make) => {
    const bad = await make();
    const logged = gateway.requestLog().length;
    for (const [path, body] of [
      [
        '/',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
        }),
      ],
      ['/message:send', JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } })],
    ] as const) {
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bad}`, 'content-type': 'application/json', 'a2a-version': '1.0' },
        body,
      });
      expect(response.status).toBe(401);
      // JSON-RPC keeps its plain 401 body; HTTP+JSON answers in its own error form, a google.rpc.Status.
      expect(await response.text()).toBe(
        path === '/'
          ? '{"error":"Unauthorized"}'
          : '{"error":{"code":401,"status":"UNAUTHENTICATED","message":"Unauthorized: valid credentials are required","details":[]}}',
      );
    }
    expect(
      gateway
        .requestLog()
        .slice(logged)
        .map((line) => line.status),
    ).toEqual([401, 401]);

    const grpc = await grpcTransport(gateway, { authorization: `Bearer ${alice}` });
    const failure = await grpcFailureOf(grpc.sendMessage(sendRequest('x'), wire({ authorization: `Bearer ${bad}` })));
    expect(failure).toMatchObject({ status: status.UNAUTHENTICATED });
  });

  it('over gRPC the token is the same caller as over HTTP', async () => {
    const { client } = await connect(gateway.url, 'JSONRPC', { token: alice });
    const overHttp = asTask(await client.sendMessage(sendRequest('over http')));
    const grpc = await grpcTransport(gateway, { authorization: `Bearer ${alice}` });
    const renewed = { authorization: `Bearer ${await token(signing)}` };
    expect((await grpc.getTask({ tenant: '', id: overHttp.id, historyLength: undefined }, wire(renewed))).id).toBe(overHttp.id);
    const overGrpc = asTask(await grpc.sendMessage(sendRequest('over grpc'), wire(renewed)));
    expect(textOf(overGrpc.history.at(-1))).toBe(upstream.reply('over grpc', 1));
    const bob = { authorization: `Bearer ${await token(signing, { sub: 'bob' })}` };
    const hidden = await grpcFailureOf(grpc.getTask({ tenant: '', id: overGrpc.id, historyLength: undefined }, wire(bob)));
    expect(hidden).toMatchObject({ status: status.NOT_FOUND, reason: 'TASK_NOT_FOUND' });
  });

  it("with only the issuer set, its OpenID configuration names the keys; the issuer's tokens work, another's do not", async () => {
    const discovering = await upstream.startGateway({
      auth: { jwt: { issuer: providerUrl, audience: AUDIENCE, 'jwks-allow-private': true } },
    });
    try {
      const { client } = await connect(discovering.url, 'HTTP+JSON', { token: await token(signing, {}, '10m', providerUrl) });
      const task = asTask(await client.sendMessage(sendRequest('found by discovery')));
      expect(textOf(task.history.at(-1))).toBe(upstream.reply('found by discovery', 1));
      await expect(connect(discovering.url, 'HTTP+JSON', { token: alice })).rejects.toThrow(/401/);
    } finally {
      await discovering.close();
    }
  });
});

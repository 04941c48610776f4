import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { CallerCredentials, Credentials } from '../../../src/config/credentials-schema.js';
import { decodeBasic, describeSecuritySchemes, presentsAnyCredential, requireCredentials } from '../../../src/surfaces/shared/auth.js';
import type { GatewayEnv } from '../../../src/surfaces/shared/env.js';
import { principalOf } from '../../../src/surfaces/shared/principal.js';
import { V1, behindGate, buildApp, rpc } from '../support.js';

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function guardedApp(creds: Record<string, unknown>) {
  const app = new Hono<GatewayEnv>();
  app.get('/who', requireCredentials(CallerCredentials.parse(creds)), (c) => c.json({ principal: c.get('principal') }));
  return async (headers: Record<string, string> = {}) => {
    const response = await app.request('/who', { headers });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
}

describe('requireCredentials', () => {
  it('lets everyone through as the 1.0 anonymous principal when no scheme is configured', async () => {
    const who = guardedApp({});
    const anonymous = JSON.stringify({ principal: 'a2a-1.0:anonymous' });
    expect(await who()).toMatchObject({ status: 200, text: anonymous });
    // Basic needs both halves: a username alone does not turn auth on.
    expect(await guardedApp({ 'basic-username': 'alice' })()).toMatchObject({ status: 200, text: anonymous });
  });

  const all = { token: 't0k3n', 'basic-username': 'alice', 'basic-password': 'pa:ss', 'api-key': 'k3y', 'api-key-header': 'X-Custom-Key' };

  it.each([
    ['bearer', { authorization: 'Bearer t0k3n' }, principalOf('a2a-1.0', 'bearer', 't0k3n')],
    ['bearer, any scheme case', { authorization: 'bearer t0k3n' }, principalOf('a2a-1.0', 'bearer', 't0k3n')],
    ['basic (password with a colon)', { authorization: basic('alice', 'pa:ss') }, principalOf('a2a-1.0', 'basic', 'alice:pa:ss')],
    ['api key in the configured header', { 'x-custom-key': 'k3y' }, principalOf('a2a-1.0', 'api-key', 'k3y')],
    ['a wrong bearer but a right api key', { authorization: 'Bearer nope', 'x-custom-key': 'k3y' }, principalOf('a2a-1.0', 'api-key', 'k3y')],
  ])('accepts %s', async (_name, headers, principal) => {
    const result = await guardedApp(all)(headers);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text)).toEqual({ principal });
  });

  it.each([
    ['nothing', {}],
    ['a wrong token', { authorization: 'Bearer t0k3n-not' }],
    ['a token prefix', { authorization: 'Bearer t0k' }],
    ['a wrong password', { authorization: basic('alice', 'wrong') }],
    ['a wrong user', { authorization: basic('bob', 'pa:ss') }],
    ['an empty user', { authorization: basic('', 'pa:ss') }],
    ['an empty password', { authorization: basic('alice', '') }],
    ['loose base64', { authorization: `Basic ${Buffer.from('alice:pa:ss').toString('base64')}!!` }],
    ['the api key in the default header', { 'x-api-key': 'k3y' }],
    ['a wrong api key', { 'x-custom-key': 'k3y-' }],
    ['the token as a Basic credential', { authorization: 'Basic t0k3n' }],
  ])('rejects %s with 401 {"error":"Unauthorized"}', async (_name, headers) => {
    const result = await guardedApp(all)(headers);
    expect(result.status).toBe(401);
    expect(result.text).toBe('{"error":"Unauthorized"}');
    expect(result.headers.get('content-type')).toBe('application/json');
    expect(result.headers.get('www-authenticate')).toBeNull();
  });

  describe('lists of tokens and API keys (auth.tokens, auth.api-keys)', () => {
    const lists = { token: 'tok-0', tokens: ['tok-1', 'tok-2'], 'api-keys': ['key-1', 'key-2'] };
    const whoWith = (headers: Record<string, string>) =>
      guardedApp(CallerCredentials.parse(lists))(headers).then((r) => ({ status: r.status, body: r.status === 200 ? JSON.parse(r.text) : r.text }));

    it.each([
      ['the single token', { authorization: 'Bearer tok-0' }, principalOf('a2a-1.0', 'bearer', 'tok-0')],
      ['the first listed token', { authorization: 'Bearer tok-1' }, principalOf('a2a-1.0', 'bearer', 'tok-1')],
      ['the second listed token', { authorization: 'Bearer tok-2' }, principalOf('a2a-1.0', 'bearer', 'tok-2')],
      ['a listed API key', { 'x-api-key': 'key-2' }, principalOf('a2a-1.0', 'api-key', 'key-2')],
    ])('accepts %s as a principal of its own', async (_name, headers, principal) => {
      expect(await whoWith(headers)).toEqual({ status: 200, body: { principal } });
    });

    it('gives every credential its own principal', () => {
      const principals = new Set(['tok-0', 'tok-1', 'tok-2'].map((t) => principalOf('a2a-1.0', 'bearer', t)));
      for (const k of ['key-1', 'key-2']) principals.add(principalOf('a2a-1.0', 'api-key', k));
      expect(principals.size).toBe(5);
    });

    it.each([
      ['a listed token as an API key', { 'x-api-key': 'tok-1' }],
      ['a listed API key as a token', { authorization: 'Bearer key-1' }],
      ['a prefix of a listed token', { authorization: 'Bearer tok-' }],
      ['two listed tokens joined', { authorization: 'Bearer tok-1tok-2' }],
    ])('rejects %s', async (_name, headers) => {
      expect((await whoWith(headers)).status).toBe(401);
    });

    it('turns auth on with a list alone, and the card names each scheme once', async () => {
      expect((await guardedApp(CallerCredentials.parse({ tokens: ['only'] }))({})).status).toBe(401);
      expect(describeSecuritySchemes(CallerCredentials.parse(lists))?.securityRequirements).toEqual([
        { schemes: { bearerAuth: { list: [] } } },
        { schemes: { apiKeyAuth: { list: [] } } },
      ]);
    });
  });

  it('uses X-API-Key by default', async () => {
    const who = guardedApp({ 'api-key': 'k' });
    expect((await who({ 'x-api-key': 'k' })).text).toBe(JSON.stringify({ principal: principalOf('a2a-1.0', 'api-key', 'k') }));
    expect((await who({ authorization: 'Bearer k' })).status).toBe(401);
  });
});

describe('client names, for logs and metrics only', () => {
  const named = (creds: Record<string, unknown>) => behindGate(requireCredentials(CallerCredentials.parse(creds)));
  const who = named({
    token: 'tok-0',
    tokens: [{ name: 'acme', token: 'tok-1' }, 'tok-2'],
    'api-keys': [{ name: 'beta', key: 'key-1' }],
    'basic-username': 'alice',
    'basic-password': 'pw',
  });

  it.each([
    ['a named token', { authorization: 'Bearer tok-1' }, 'bearer', 'tok-1', 'acme'],
    ['a named API key', { 'x-api-key': 'key-1' }, 'api-key', 'key-1', 'beta'],
    ['Basic, by its user', { authorization: basic('alice', 'pw') }, 'basic', 'alice:pw', 'alice'],
  ] as const)(
    "%s: the request and its log line get the name; the principal is the credential's alone",
    async (_name, headers, scheme, credential, client) => {
      expect((await who(headers)).body).toEqual({ principal: principalOf('a2a-1.0', scheme, credential), client, logged: { client } });
    },
  );

  it.each([
    ['the single token', 'tok-0'],
    ['an unnamed listed token', 'tok-2'],
  ])('%s: no name anywhere', async (_name, token) => {
    expect((await who({ authorization: `Bearer ${token}` })).body).toEqual({
      principal: principalOf('a2a-1.0', 'bearer', token),
      client: null,
      logged: {},
    });
  });

  it('a Basic user that cannot be a client name leaves the caller unnamed', async () => {
    const odd = named({ 'basic-username': 'alice@example.com', 'basic-password': 'pw' });
    expect((await odd({ authorization: basic('alice@example.com', 'pw') })).body).toMatchObject({ client: null, logged: {} });
  });

  it('a secret given both plain and named is one caller, with the name', async () => {
    const twice = named({ token: 'tok-0', tokens: [{ name: 'acme', token: 'tok-0' }] });
    expect((await twice({ authorization: 'Bearer tok-0' })).body).toEqual({
      principal: principalOf('a2a-1.0', 'bearer', 'tok-0'),
      client: 'acme',
      logged: { client: 'acme' },
    });
  });
});

describe('decodeBasic', () => {
  it.each([
    [Buffer.from('u:p').toString('base64'), { username: 'u', password: 'p' }],
    ['dTpw', { username: 'u', password: 'p' }],
    ['dTpw=', undefined],
    ['dTp w', undefined],
    ['', undefined],
    [Buffer.from('nocolon').toString('base64'), undefined],
    [Buffer.from([0x75, 0x3a, 0xff]).toString('base64'), undefined],
  ])('%j → %j', (encoded, expected) => {
    expect(decodeBasic(encoded)).toEqual(expected);
  });
});

describe('describeSecuritySchemes', () => {
  it('is undefined without credentials', () => {
    expect(describeSecuritySchemes(Credentials.parse({}))).toBeUndefined();
  });

  it('advertises each configured scheme as its own requirement (any one suffices)', () => {
    expect(
      describeSecuritySchemes(
        Credentials.parse({ token: 't', 'basic-username': 'u', 'basic-password': 'p', 'api-key': 'k', 'api-key-header': 'X-Key' }),
      ),
    ).toEqual({
      securitySchemes: {
        bearerAuth: { httpAuthSecurityScheme: { scheme: 'bearer' } },
        basicAuth: { httpAuthSecurityScheme: { scheme: 'basic' } },
        apiKeyAuth: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
      },
      securityRequirements: [
        { schemes: { bearerAuth: { list: [] } } },
        { schemes: { basicAuth: { list: [] } } },
        { schemes: { apiKeyAuth: { list: [] } } },
      ],
    });
  });

  it('omits Basic unless both username and password are set', () => {
    expect(describeSecuritySchemes(Credentials.parse({ 'api-key': 'k', 'basic-password': 'p' }))?.securitySchemes).toEqual({
      apiKeyAuth: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    });
  });
});

describe('auth on the composed 1.0 surface', () => {
  const { app } = buildApp({ config: { auth: { token: 'secret' } } });

  it('guards JSON-RPC, REST, the extended card and the card, but not /health or /ready', async () => {
    expect((await rpc(app, 'GetTask', { id: 't' })).status).toBe(401);
    expect((await app.request('/tasks/t', { headers: V1 })).status).toBe(401);
    expect((await app.request('/extendedAgentCard', { headers: V1 })).status).toBe(401);
    expect((await app.request('/.well-known/agent-card.json')).status).toBe(401);
    expect((await app.request('/health')).status).toBe(200);
    expect((await app.request('/ready')).status).toBe(200);
    const ok = await rpc(app, 'GetTask', { id: 't' }, { headers: { authorization: 'Bearer secret' } });
    expect(ok.body.result.id).toBe('t');
  });

  it('passes the principal to the port', async () => {
    const { app: guarded, port } = buildApp({ config: { auth: { 'basic-username': 'alice', 'basic-password': 'pw' } } });
    await guarded.request('/tasks/t', { headers: { ...V1, authorization: basic('alice', 'pw') } });
    expect(port.last().ctx.principal).toBe(principalOf('a2a-1.0', 'basic', 'alice:pw'));
  });
});

describe('principalOf', () => {
  it('names the surface and scheme, never the credential, and differs for every credential and surface', () => {
    const principals = [
      principalOf('a2a-1.0', 'bearer', 'k'),
      principalOf('a2a-1.0', 'api-key', 'k'),
      principalOf('a2a-0.2.5', 'api-key', 'k'),
      principalOf('a2a-1.0', 'api-key', 'k2'),
      principalOf('a2a-1.0', 'anonymous'),
      principalOf('a2a-0.2.5', 'anonymous'),
    ];
    expect(new Set(principals).size).toBe(principals.length);
    expect(principals[2]).toMatch(/^a2a-0\.2\.5:api-key:[A-Za-z0-9_-]{32}$/);
    expect(principalOf('a2a-1.0', 'bearer', 'k')).toBe(principals[0]);
    for (const principal of principals) expect(principal.split(':').at(-1)).not.toBe('k');
  });
});

describe('presentsAnyCredential: whether a request carries the 1.0 surface credentials at all, right or wrong', () => {
  it('an Authorization header always; its API-key header only when API keys are set (the facade sends X-API-KEY too)', () => {
    const tokenOnly = CallerCredentials.parse({ token: 'presents-token-zzzzzzzzzzzz' });
    const withKeys = CallerCredentials.parse({ 'api-key': 'presents-key-zzzzzzzzzzzzzz' });
    expect(presentsAnyCredential(new Headers({ authorization: 'Bearer wrong' }), tokenOnly)).toBe(true);
    expect(presentsAnyCredential(new Headers({ 'x-api-key': 'some-key' }), tokenOnly)).toBe(false);
    expect(presentsAnyCredential(new Headers({ 'x-api-key': 'some-key' }), withKeys)).toBe(true);
    expect(presentsAnyCredential(new Headers(), withKeys)).toBe(false);
  });
});

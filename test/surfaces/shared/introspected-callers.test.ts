/**
 * `auth.introspection`: which opaque tokens vouch for a caller, as an RFC 7662 endpoint (a real HTTP
 * server here) answers, who that caller is, what the gateway asks and how long it remembers an answer.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { IntrospectionAuthConfig } from '../../../src/config/introspection-schema.js';
import { CallerCredentials } from '../../../src/config/credentials-schema.js';
import { authenticate } from '../../../src/surfaces/shared/auth.js';
import { createIntrospectedCallers } from '../../../src/surfaces/shared/introspected-callers.js';
import { tokenSubjectPrincipal } from '../../../src/surfaces/shared/principal.js';

const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);
const ISSUER = 'https://login.example.test/';

interface Asked {
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

/** The provider: an answer per token (a JSON body, or `[status, body]`), and every question it was asked. */
let answers: Record<string, unknown> = {};
let asked: Asked[] = [];
let answerDelayMs = 0;
let server: Server;
let url: string;

async function body(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void (async () => {
      const form = Object.fromEntries(new URLSearchParams(await body(request)));
      asked.push({ authorization: request.headers.authorization, contentType: request.headers['content-type'], form });
      await new Promise((resolve) => setTimeout(resolve, answerDelayMs));
      const answer = answers[form.token ?? ''] ?? { active: false };
      const [status, payload] = Array.isArray(answer) ? answer : [200, answer];
      response.writeHead(status as number, { 'content-type': 'application/json' });
      response.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/introspect`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers = {};
  asked = [];
  answerDelayMs = 0;
});

function callers(overrides: Record<string, unknown> = {}) {
  let at = T0;
  const warnings: string[] = [];
  const config = IntrospectionAuthConfig.parse({
    url,
    'client-id': 'a2a gateway',
    'client-secret': 's3cret:&',
    issuer: ISSUER,
    audience: ['a2a-bridge', 'gateway'],
    'allow-private': true,
    ...overrides,
  });
  const check = createIntrospectedCallers(config, { now: () => at, logger: { warn: (_fields, message) => warnings.push(message) } });
  return { check, warnings, advance: (ms: number) => (at += ms) };
}

const active = (claims: Record<string, unknown> = {}) => ({
  active: true,
  sub: 'alice',
  iss: ISSUER,
  aud: 'a2a-bridge',
  exp: T0 / 1000 + 3600,
  ...claims,
});

describe('opaque tokens asked about at the provider', () => {
  it("an active token is its subject's, named by its client; the gateway asks as a client of its own, with the token in a form", async () => {
    answers['tok-alice'] = active({ client_id: 'shop-frontend' });
    const { check } = callers();
    expect(await check('tok-alice')).toEqual({ principal: tokenSubjectPrincipal('a2a-1.0', ISSUER, 'alice'), client: 'shop-frontend' });
    expect(asked).toEqual([
      {
        authorization: `Basic ${Buffer.from('a2a%20gateway:s3cret%3A%26').toString('base64')}`,
        contentType: 'application/x-www-form-urlencoded',
        form: { token: 'tok-alice', token_type_hint: 'access_token' },
      },
    ]);
  });

  it('the same subject with another token is the same caller; a JWT with the same issuer and subject too', async () => {
    answers.a = active();
    answers.b = active({ client_id: 'cli' });
    const { check } = callers();
    expect((await check('a'))?.principal).toBe((await check('b'))?.principal);
    expect((await check('a'))?.principal).toBe(tokenSubjectPrincipal('a2a-1.0', ISSUER, 'alice'));
  });

  it('an answer is remembered for cache-ms, so a revoked token is refused at most that late; never past its exp (and the clock tolerance)', async () => {
    answers.t = active({ exp: T0 / 1000 + 30 });
    const { check, advance } = callers({ 'cache-ms': 120_000 });
    expect(await check('t')).toBeDefined();
    answers.t = { active: false };
    advance(50_000);
    expect(await check('t')).toBeDefined();
    expect(asked).toHaveLength(1);
    advance(11_000);
    expect(await check('t')).toBeUndefined();
    expect(asked).toHaveLength(2);
  });

  it('a refused token is refused again without asking for refused-cache-ms, then asked about again', async () => {
    const { check, advance } = callers({ 'refused-cache-ms': 10_000 });
    expect(await check('nobody')).toBeUndefined();
    expect(await check('nobody')).toBeUndefined();
    expect(asked).toHaveLength(1);
    answers.nobody = active();
    advance(10_001);
    expect(await check('nobody')).toBeDefined();
    expect(asked).toHaveLength(2);
  });

  it.each([
    ['inactive', { ...active(), active: false }],
    ['active as a string', { ...active(), active: 'true' }],
    ['expired beyond the clock tolerance', active({ exp: T0 / 1000 - 31 })],
    ['with an exp that is no number', active({ exp: '2099-01-01' })],
    ['not yet valid beyond the clock tolerance', active({ nbf: T0 / 1000 + 31 })],
    ['a refresh token (RFC 7662 hint)', active({ token_type: 'refresh_token' })],
    ["a refresh token (Hydra's token_use)", active({ token_use: 'refresh_token', token_type: 'Bearer' })],
    ["a refresh token (Keycloak's typ)", active({ typ: 'Refresh' })],
    ['from another issuer', active({ iss: 'https://elsewhere.example.test/' })],
    ['for another audience', active({ aud: ['other'] })],
    ['for no audience', active({ aud: undefined })],
    ['without subject or client', { active: true, aud: 'a2a-bridge' }],
    ['not an object', [200, '[1, 2]']],
  ])('%s: refused', async (_name, answer) => {
    answers.t = answer;
    const { check } = callers();
    expect(await check('t')).toBeUndefined();
  });

  it('a clock a little behind or ahead of the provider is tolerated', async () => {
    answers.t = active({ exp: T0 / 1000 - 10, nbf: T0 / 1000 + 10 });
    expect(await callers().check('t')).toBeDefined();
  });

  it("a token issued to a client alone is that client's, never a user's of the same name; the audience is one of those configured", async () => {
    answers.client = { active: true, client_id: 'batch-job', aud: ['gateway', 'other'] };
    answers.user = active({ sub: 'batch-job' });
    const { check } = callers();
    const client = await check('client');
    expect(client?.client).toBe('batch-job');
    expect(client?.principal).not.toBe((await check('user'))?.principal);
  });

  it("a subject that is no usable string is refused, never taken for the client's own token (which its users would then share)", async () => {
    answers.client = { active: true, client_id: 'web-app', aud: 'a2a-bridge' };
    // A provider mapping `subject-claim` to a numeric user id, and one letting a user choose a name with NUL in it.
    answers.numeric = active({ sub: 42, client_id: 'web-app' });
    answers.other = active({ sub: 43, client_id: 'web-app' });
    answers.nul = active({ sub: '\u0000client\u0000web-app', client_id: 'someone-else' });
    const { check } = callers();
    const client = await check('client');
    expect(client).toBeDefined();
    for (const token of ['numeric', 'other', 'nul']) expect(await check(token), token).toBeUndefined();
  });

  it('an answer without iss is of the configured issuer', async () => {
    answers.t = { active: true, sub: 'alice', aud: 'a2a-bridge' };
    expect((await callers().check('t'))?.principal).toBe(tokenSubjectPrincipal('a2a-1.0', ISSUER, 'alice'));
  });

  it('concurrent requests with one new token ask once', async () => {
    answers.t = active();
    answerDelayMs = 50;
    const { check } = callers();
    const results = await Promise.all([check('t'), check('t'), check('t')]);
    expect(results.every((caller) => caller?.principal === results[0]?.principal && caller !== undefined)).toBe(true);
    expect(asked).toHaveLength(1);
  });

  it('at most 32 new tokens are asked about at once; the rest are refused unasked, and said so', async () => {
    answerDelayMs = 100;
    const { check, warnings } = callers();
    const made = Array.from({ length: 40 }, (_, at) => `made-up-${at}`);
    expect((await Promise.all(made.map((token) => check(token)))).every((caller) => caller === undefined)).toBe(true);
    expect(asked).toHaveLength(32);
    expect(warnings).toEqual(['auth.introspection: too many new tokens at once: the rest are refused unasked']);
  });

  it('a value that is no access token is not asked about', async () => {
    const { check } = callers();
    for (const token of ['has space', 'ünïcode', 'x'.repeat(16 * 1024 + 1), 'a=b']) expect(await check(token)).toBeUndefined();
    expect(asked).toHaveLength(0);
  });

  it.each([
    ['an error status', [500, { error: 'boom' }]],
    ['a body that is not JSON', [200, '<html>']],
  ])('an endpoint answering %s: refused, said once a minute without the token, and asked again next time', async (_name, answer) => {
    answers.t = answer;
    const { check, warnings } = callers();
    expect(await check('t')).toBeUndefined();
    expect(await check('t')).toBeUndefined();
    expect(asked).toHaveLength(2);
    expect(warnings).toEqual(['auth.introspection: the endpoint cannot be asked: new tokens are refused']);
  });

  it('a provider on a private address needs allow-private', async () => {
    answers.t = active();
    const { check, warnings } = callers({ 'allow-private': false });
    expect(await check('t')).toBeUndefined();
    expect(asked).toHaveLength(0);
    expect(warnings).toHaveLength(1);
  });

  describe('beside auth.jwt', () => {
    // authenticate() reads the real clock.
    const live = () => active({ exp: Math.floor(Date.now() / 1000) + 600 });
    const secret = 'a-shared-secret-of-at-least-32-characters!';
    const jwtFor = (audience: string) =>
      new SignJWT({ sub: 'alice' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(ISSUER)
        .setAudience(audience)
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(secret));
    const bearer = (token: string) => new Headers({ authorization: `Bearer ${token}` });
    const introspection = { url, 'client-id': 'gw', 'client-secret': 's', issuer: ISSUER, audience: 'a2a-bridge', 'allow-private': true };

    it("a JWT is auth.jwt's to judge: one it refuses is not asked about at the provider, where its audience might pass", async () => {
      const both = CallerCredentials.parse({ jwt: { issuer: ISSUER, audience: 'a2a-bridge', secret }, introspection: { ...introspection, url } });
      answers[await jwtFor('other-api')] = live();
      expect(await authenticate(bearer(await jwtFor('other-api')), both)).toBeUndefined();
      expect(await authenticate(bearer(await jwtFor('a2a-bridge')), both)).toBeDefined();
      expect(asked).toHaveLength(0);
      answers.opaque = live();
      expect(await authenticate(bearer('opaque'), both)).toBeDefined();
      expect(asked).toHaveLength(1);
    });

    it('without auth.jwt a JWT-shaped token is asked about like any other', async () => {
      const token = await jwtFor('other-api');
      answers[token] = live();
      expect(await authenticate(bearer(token), CallerCredentials.parse({ introspection: { ...introspection, url } }))).toBeDefined();
      expect(asked).toHaveLength(1);
    });
  });
});

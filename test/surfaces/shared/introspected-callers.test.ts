/**
 * `auth.introspection`: which opaque tokens vouch for a caller, as an RFC 7662 endpoint (a real HTTP
 * server here) answers, who that caller is, what the gateway asks and how long it remembers an answer.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IntrospectionAuthConfig } from '../../../src/config/introspection-schema.js';
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
    'allow-private': true,
    ...overrides,
  });
  const check = createIntrospectedCallers(config, { now: () => at, logger: { warn: (_fields, message) => warnings.push(message) } });
  return { check, warnings, advance: (ms: number) => (at += ms) };
}

const active = (claims: Record<string, unknown> = {}) => ({ active: true, sub: 'alice', iss: ISSUER, exp: T0 / 1000 + 3600, ...claims });

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

  it('an answer is remembered for cache-ms, so a revoked token is refused at most that late; never past its exp', async () => {
    answers.t = active({ exp: T0 / 1000 + 30 });
    const { check, advance } = callers({ 'cache-ms': 60_000 });
    expect(await check('t')).toBeDefined();
    answers.t = { active: false };
    advance(20_000);
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
    ['inactive', { active: false, sub: 'alice' }],
    ['active as a string', { ...active(), active: 'true' }],
    ['expired', active({ exp: T0 / 1000 - 1 })],
    ['not yet valid', active({ nbf: T0 / 1000 + 60 })],
    ['a refresh token', active({ token_type: 'refresh_token' })],
    ['from another issuer', active({ iss: 'https://elsewhere.example.test/' })],
    ['for another audience', active({ aud: ['other'] })],
    ['without subject or client', { active: true }],
    ['not an object', [200, '[1, 2]']],
  ])('%s: refused', async (_name, answer) => {
    answers.t = answer;
    const { check } = callers({ audience: ['a2a-bridge', 'gateway'] });
    expect(await check('t')).toBeUndefined();
  });

  it("a token issued to a client alone is that client's; the audience is one of those configured", async () => {
    answers.t = { active: true, client_id: 'batch-job', aud: 'gateway' };
    const { check } = callers({ audience: ['a2a-bridge', 'gateway'] });
    expect(await check('t')).toEqual({ principal: tokenSubjectPrincipal('a2a-1.0', ISSUER, 'batch-job'), client: 'batch-job' });
  });

  it('without a configured issuer, the answer names it, else the endpoint does', async () => {
    answers.named = active({ iss: 'https://other.example.test/' });
    answers.unnamed = { active: true, sub: 'alice' };
    const { check } = callers({ issuer: undefined });
    expect((await check('named'))?.principal).toBe(tokenSubjectPrincipal('a2a-1.0', 'https://other.example.test/', 'alice'));
    expect((await check('unnamed'))?.principal).toBe(tokenSubjectPrincipal('a2a-1.0', url, 'alice'));
  });

  it('concurrent requests with one new token ask once', async () => {
    answers.t = active();
    answerDelayMs = 50;
    const { check } = callers();
    const results = await Promise.all([check('t'), check('t'), check('t')]);
    expect(results.every((caller) => caller?.principal === results[0]?.principal && caller !== undefined)).toBe(true);
    expect(asked).toHaveLength(1);
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
});

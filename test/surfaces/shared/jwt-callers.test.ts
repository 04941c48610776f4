/**
 * `auth.jwt`: which tokens vouch for a caller and who that caller is. Keys are real (jose-made ES256
 * and RSA pairs, HS256 secrets), the JWKS a file or an HTTP server, the clock the verifier's own.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwtAuthConfig } from '../../../src/config/jwt-schema.js';
import { createJwtCallers, type JwtCallersOptions } from '../../../src/surfaces/shared/jwt-callers.js';
import { tokenSubjectPrincipal } from '../../../src/surfaces/shared/principal.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'a2a-bridge';
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string, alg = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

interface Claims {
  sub?: string;
  iss?: string;
  aud?: string | string[];
  /** Seconds from T0; absent: none. */
  exp?: number | null;
  nbf?: number;
  azp?: string;
  [claim: string]: unknown;
}

function sign(key: SigningKey | { secret: Uint8Array; kid?: string }, claims: Claims = {}): Promise<string> {
  const { exp = 600, nbf, iss = ISSUER, aud = AUDIENCE, sub = 'alice', ...rest } = claims;
  const at = Math.floor(T0 / 1000);
  const jwt = new SignJWT({ ...rest, sub, iss, aud, iat: at, jti: `${Math.random()}` }).setProtectedHeader(
    'secret' in key ? { alg: 'HS256', ...(key.kid ? { kid: key.kid } : {}) } : { alg: key.alg, kid: key.kid },
  );
  if (exp !== null) jwt.setExpirationTime(at + exp);
  if (nbf !== undefined) jwt.setNotBefore(at + nbf);
  return jwt.sign('secret' in key ? key.secret : key.privateKey);
}

const dir = mkdtempSync(path.join(tmpdir(), 'jwt-callers-'));
function jwksFile(keys: JWK[]): string {
  const file = path.join(dir, `jwks-${Math.random()}.json`);
  writeFileSync(file, JSON.stringify({ keys }));
  return file;
}

function verifier(config: Record<string, unknown>, options: JwtCallersOptions & { at?: () => number } = {}) {
  return createJwtCallers(JwtAuthConfig.parse({ issuer: ISSUER, audience: AUDIENCE, ...config }), { now: () => T0, ...options });
}

describe('createJwtCallers', () => {
  let es: SigningKey;
  let rsa: SigningKey;
  let stranger: SigningKey;
  beforeAll(async () => {
    [es, rsa, stranger] = await Promise.all([signingKey('es-1'), signingKey('rsa-1', 'RS256'), signingKey('es-1')]);
  });

  it('a token signed by a key of the JWKS vouches for its subject: the same caller across tokens, another for another subject', async () => {
    const callers = verifier({ 'jwks-file': jwksFile([es.jwk, rsa.jwk]) });
    const alice = await callers(await sign(es, { azp: 'shop-frontend' }));
    expect(alice).toEqual({ principal: tokenSubjectPrincipal('a2a-1.0', ISSUER, 'alice'), client: 'shop-frontend' });
    // A later token of hers, by the other key and without a client claim, is still her.
    expect((await callers(await sign(rsa)))?.principal).toBe(alice?.principal);
    const bob = await callers(await sign(es, { sub: 'bob' }));
    expect(bob?.principal).toMatch(/^a2a-1\.0:jwt:/);
    expect(bob?.principal).not.toBe(alice?.principal);
    expect(bob?.client).toBeUndefined();
  });

  it.each<[string, Claims]>([
    ['expired beyond the leeway', { exp: -31 }],
    ['not yet valid beyond the leeway', { nbf: 31 }],
    ['from another issuer', { iss: 'https://other.example.test/' }],
    ['for another audience', { aud: 'someone-else' }],
    ['without an expiry', { exp: null }],
    ['without a subject', { sub: '' }],
  ])('refuses a token %s', async (_name, claims) => {
    const callers = verifier({ 'jwks-file': jwksFile([es.jwk]) });
    expect(await callers(await sign(es, claims))).toBeUndefined();
  });

  it.each<[string, Claims, RegExp]>([
    ['for another audience', { aud: 'someone-else' }, /"aud" claim/],
    ['from another issuer', { iss: 'https://other.example.test/' }, /"iss" claim/],
    ['expired', { exp: -31 }, /"exp" claim/],
    ['without a subject', { sub: '' }, /sub claim names no subject/],
  ])('tells the operator at debug why a token %s was refused, and nothing of the token', async (_name, claims, reason) => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger = {
      warn: () => undefined,
      debug: (fields: object, message: string) => lines.push({ fields: fields as Record<string, unknown>, message }),
    };
    const callers = verifier({ 'jwks-file': jwksFile([es.jwk]) }, { logger });
    const token = await sign(es, claims);
    expect(await callers(token)).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toBe('auth.jwt: a bearer token was refused');
    expect(String(lines[0]!.fields.reason)).toMatch(reason);
    expect(JSON.stringify(lines)).not.toContain(token.split('.')[1]!);
  });

  it('takes a token within the leeway, and one naming the audience among others', async () => {
    const callers = verifier({ 'jwks-file': jwksFile([es.jwk]) });
    expect(await callers(await sign(es, { exp: -29 }))).toBeDefined();
    expect(await callers(await sign(es, { nbf: 29 }))).toBeDefined();
    expect(await callers(await sign(es, { aud: ['other', AUDIENCE] }))).toBeDefined();
  });

  it('refuses a forged, altered, unsigned or mis-typed token', async () => {
    const callers = verifier({ 'jwks-file': jwksFile([es.jwk]) });
    // Another key under the same kid.
    expect(await callers(await sign(stranger))).toBeUndefined();
    // A payload altered after signing.
    const [header, , signature] = (await sign(es)).split('.');
    const altered = Buffer.from(JSON.stringify({ sub: 'admin', iss: ISSUER, aud: AUDIENCE, exp: T0 / 1000 + 600 })).toString('base64url');
    expect(await callers(`${header}.${altered}.${signature}`)).toBeUndefined();
    // alg none, with and without an empty signature segment.
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    expect(await callers(`${none}.${altered}.`)).toBeUndefined();
    expect(await callers(`${none}.${altered}.c2ln`)).toBeUndefined();
    // The public key's own material as an HMAC secret (the algorithm-confusion attack).
    const confused = await sign({ secret: new TextEncoder().encode(JSON.stringify(es.jwk)), kid: es.kid });
    expect(await callers(confused)).toBeUndefined();
    for (const junk of ['', 'a.b', 'not a token', 'a.b.c', `${'a'.repeat(20_000)}.b.c`]) expect(await callers(junk)).toBeUndefined();
  });

  it('refuses a subject with NUL in it, which could pass for a client acting for itself', async () => {
    const secret = 'an HS256 secret of at least 32 chars!';
    const callers = verifier({ secret });
    expect(await callers(await sign({ secret: new TextEncoder().encode(secret) }, { sub: '\u0000client\u0000web-app' }))).toBeUndefined();
    expect(await callers(await sign({ secret: new TextEncoder().encode(secret) }, { sub: 'web-app' }))).toBeDefined();
  });

  it('HS256 with a shared secret, and only when a secret is set', async () => {
    const secret = 'an HS256 secret of at least 32 chars!';
    const token = await sign({ secret: new TextEncoder().encode(secret) });
    expect((await verifier({ secret })(token))?.principal).toBe(tokenSubjectPrincipal('a2a-1.0', ISSUER, 'alice'));
    expect(await verifier({ secret: `${secret}-other` })(token)).toBeUndefined();
    expect(await verifier({ 'jwks-file': jwksFile([es.jwk]) })(token)).toBeUndefined();
    // Narrowed to ES256, the secret's tokens are refused too.
    expect(await verifier({ secret, algorithms: ['ES256'] })(token)).toBeUndefined();
  });

  it('a verified token is not trusted past its expiry, though remembered', async () => {
    let now = T0;
    const callers = verifier({ 'jwks-file': jwksFile([es.jwk]), 'clock-tolerance-ms': 0 }, { now: () => now });
    const token = await sign(es, { exp: 20 });
    expect(await callers(token)).toBeDefined();
    now = T0 + 19_000;
    expect(await callers(token)).toBeDefined();
    now = T0 + 21_000;
    expect(await callers(token)).toBeUndefined();
  });

  describe('keys fetched from a JWKS URL', () => {
    let server: Server;
    let url: string;
    let served: JWK[] = [];
    let fetches = 0;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        fetches++;
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ keys: served }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('a key the provider rotates in is fetched when a token names it; the JWKS is not fetched per call', async () => {
      served = [es.jwk];
      fetches = 0;
      const callers = verifier({ 'jwks-url': url, 'jwks-allow-private': true }, { refetchCooldownMs: 0 });
      for (let i = 0; i < 3; i++) expect(await callers(await sign(es))).toBeDefined();
      expect(fetches).toBe(1);
      const next = await signingKey('es-2');
      expect(await callers(await sign(next))).toBeUndefined();
      served = [es.jwk, next.jwk];
      expect(await callers(await sign(next))).toBeDefined();
    });

    it('refuses every token while the key server is private and not allowed', async () => {
      served = [es.jwk];
      fetches = 0;
      expect(await verifier({ 'jwks-url': url })(await sign(es))).toBeUndefined();
      expect(fetches).toBe(0);
    });
  });
});

describe('auth.jwt config', () => {
  it.each([
    [{ issuer: 'login.example.test', audience: AUDIENCE }, /jwks-url, jwks-file or secret, or an http\(s\) issuer/],
    [{ issuer: ISSUER, audience: AUDIENCE, secret: 'short' }, /at least 32/],
    [{ issuer: ISSUER, audience: AUDIENCE, 'jwks-file': '/x', algorithms: ['HS256'] }, /HS256 needs a secret/],
    [{ issuer: ISSUER, audience: AUDIENCE, 'jwks-file': '/x', algorithms: ['none'] }, /Invalid option/],
    [{ audience: AUDIENCE, 'jwks-file': '/x' }, /issuer/],
    [{ issuer: ISSUER, audience: [], 'jwks-file': '/x' }, /audience/],
  ])('refuses %j', (config, message) => {
    const parsed = JwtAuthConfig.safeParse(config);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(message);
  });
});

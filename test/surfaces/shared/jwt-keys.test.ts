/**
 * Where `auth.jwt` finds its keys and what it says when it cannot: the issuer's OpenID configuration
 * (an HTTP provider serving the discovery document and its JWKS), the checks at start, and the warning
 * while no key can be loaded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JwtAuthConfig } from '../../../src/config/jwt-schema.js';
import { createJwtCallers } from '../../../src/surfaces/shared/jwt-callers.js';
import { checkJwtKeys } from '../../../src/surfaces/shared/jwt-keys.js';

const AUDIENCE = 'a2a-bridge';

/** A provider on 127.0.0.1: its discovery document names `issuer` (default its own URL) and its JWKS. */
interface Provider {
  issuer: string;
  requests: string[];
  /** What the discovery document says (a string: sent as it is); `undefined`: 404. */
  discovery: Record<string, unknown> | string | undefined;
  keys: JWK[];
}

let server: Server;
const provider: Provider = { issuer: '', requests: [], discovery: undefined, keys: [] };
let key: { privateKey: CryptoKey; jwk: JWK };

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' } };
  server = createServer((request, response) => {
    provider.requests.push(request.url ?? '');
    const body =
      request.url === '/.well-known/openid-configuration' ? provider.discovery : request.url === '/keys' ? { keys: provider.keys } : undefined;
    response.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  provider.requests = [];
  provider.keys = [key.jwk];
  provider.discovery = { issuer: provider.issuer, jwks_uri: `${provider.issuer}/keys` };
});

const token = (issuer = provider.issuer) =>
  new SignJWT({ sub: 'alice' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(key.privateKey);
const config = (more: Record<string, unknown> = {}) =>
  JwtAuthConfig.parse({ issuer: provider.issuer, audience: AUDIENCE, 'jwks-allow-private': true, ...more });

function recordingLogger() {
  const warnings: Array<{ msg: string; reason?: string }> = [];
  return { warnings, logger: pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line) as { msg: string }) }) };
}

describe("keys from the issuer's OpenID configuration", () => {
  it('with no key source set, the JWKS the configuration names verifies the tokens, read once', async () => {
    const callers = createJwtCallers(config());
    expect(await callers(await token())).toBeDefined();
    expect(await callers(await token())).toBeDefined();
    expect(provider.requests).toEqual(['/.well-known/openid-configuration', '/keys']);
  });

  it('refuses a configuration that names another issuer or no JWKS, and looks again once the cooldown passed', async () => {
    let now = Date.now();
    const { warnings, logger } = recordingLogger();
    const callers = createJwtCallers(config(), { now: () => now, logger });
    provider.discovery = { issuer: 'https://someone-else.example/', jwks_uri: `${provider.issuer}/keys` };
    expect(await callers(await token())).toBeUndefined();
    expect(warnings.map((line) => line.reason)).toEqual(['the OpenID configuration names another issuer']);
    // Within the cooldown the provider is not asked again, and the warning is not repeated.
    provider.discovery = { issuer: provider.issuer, jwks_uri: `${provider.issuer}/keys` };
    expect(await callers(await token())).toBeUndefined();
    expect(provider.requests).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    now += 61_000;
    expect(await callers(await token())).toBeDefined();
    provider.discovery = { issuer: provider.issuer };
    expect(await createJwtCallers(config())(await token())).toBeUndefined();
    provider.discovery = '<html>login</html>';
    const notJson = recordingLogger();
    expect(await createJwtCallers(config(), { logger: notJson.logger })(await token())).toBeUndefined();
    expect(notJson.warnings.map((line) => line.reason)).toEqual(['the OpenID configuration is not JSON']);
  });

  it('a private provider is refused unless allowed', async () => {
    expect(await createJwtCallers(config({ 'jwks-allow-private': false }))(await token())).toBeUndefined();
    expect(provider.requests).toEqual([]);
  });
});

describe('checkJwtKeys at start', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'jwt-keys-'));
  const file = (content: string) => {
    const name = path.join(dir, `${Math.random()}.json`);
    writeFileSync(name, content);
    return name;
  };

  it('stops the start on a JWKS file that cannot be used, naming the key', async () => {
    const { logger } = recordingLogger();
    await expect(checkJwtKeys(config({ 'jwks-file': path.join(dir, 'missing.json') }), logger)).rejects.toThrow(
      /^auth\.jwt\.jwks-file cannot be read/,
    );
    await expect(checkJwtKeys(config({ 'jwks-file': file('nope') }), logger)).rejects.toThrow(/auth\.jwt\.jwks-file/);
    await expect(checkJwtKeys(config({ 'jwks-file': file('{"keys":[]}') }), logger)).rejects.toThrow('auth.jwt.jwks-file holds no keys');
    await expect(checkJwtKeys(config({ 'jwks-file': file('{"keys":[{"kty":"oct"}]}') }), logger)).resolves.toBeUndefined();
  });

  it('only warns when the JWKS URL or the OpenID configuration does not answer yet', async () => {
    const { warnings, logger } = recordingLogger();
    await checkJwtKeys(config({ 'jwks-url': 'http://127.0.0.1:9/keys' }), logger);
    provider.discovery = undefined;
    await checkJwtKeys(config(), logger);
    expect(warnings.map((line) => line.msg)).toEqual([
      'auth.jwt: jwks-url cannot be read yet: tokens are refused until it can',
      "auth.jwt: the issuer's OpenID configuration or its JWKS cannot be read yet: tokens are refused until it can",
    ]);
    provider.discovery = { issuer: provider.issuer, jwks_uri: `${provider.issuer}/keys` };
    await checkJwtKeys(config(), logger);
    expect(warnings).toHaveLength(2);
  });
});

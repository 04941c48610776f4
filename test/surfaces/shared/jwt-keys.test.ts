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
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JwtAuthConfig } from '../../../src/config/jwt-schema.js';
import { createJwtCallers } from '../../../src/surfaces/shared/jwt-callers.js';
import { checkJwtKeyFile } from '../../../src/surfaces/shared/jwt-keys.js';
import { capturedLog } from '../../support/captured-log.js';

const AUDIENCE = 'a2a-bridge';

/** A provider on 127.0.0.1: its discovery document names `issuer` (default its own URL) and its JWKS. */
interface Provider {
  issuer: string;
  requests: string[];
  /** What the discovery document says (a string: sent as it is); `undefined`: 404. */
  discovery: Record<string, unknown> | string | undefined;
  keys: JWK[];
  /** The JWKS at `/keys-2`, where a provider that moved its keys serves them. */
  movedKeys: JWK[];
}

let server: Server;
const provider: Provider = { issuer: '', requests: [], discovery: undefined, keys: [], movedKeys: [] };
let key: { privateKey: CryptoKey; jwk: JWK };

async function signingKey(kid: string): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  return { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256' } };
}

beforeAll(async () => {
  key = await signingKey('k1');
  server = createServer((request, response) => {
    provider.requests.push(request.url ?? '');
    const documents: Record<string, unknown> = {
      '/.well-known/openid-configuration': provider.discovery,
      '/keys': { keys: provider.keys },
      '/keys-2': { keys: provider.movedKeys },
    };
    const body = documents[request.url ?? ''] as Record<string, unknown> | string | undefined;
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

const token = (issuer = provider.issuer, signer = key) =>
  new SignJWT({ sub: 'alice' })
    .setProtectedHeader({ alg: 'ES256', kid: signer.jwk.kid! })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setExpirationTime('1h')
    .sign(signer.privateKey);
const config = (more: Record<string, unknown> = {}) =>
  JwtAuthConfig.parse({ issuer: provider.issuer, audience: AUDIENCE, 'jwks-allow-private': true, ...more });

describe("keys from the issuer's OpenID configuration", () => {
  it('with no key source set, the JWKS the configuration names verifies the tokens, read once', async () => {
    const callers = createJwtCallers(config());
    expect(await callers(await token())).toBeDefined();
    expect(await callers(await token())).toBeDefined();
    expect(provider.requests).toEqual(['/.well-known/openid-configuration', '/keys']);
  });

  it('refuses a configuration that names another issuer or no JWKS, and looks again once the cooldown passed', async () => {
    let now = Date.now();
    const { lines: warnings, logger } = capturedLog('warn');
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
    const notJson = capturedLog('warn');
    expect(await createJwtCallers(config(), { logger: notJson.logger })(await token())).toBeUndefined();
    expect(notJson.lines.map((line) => line.reason)).toEqual(['the OpenID configuration is not JSON']);
  });

  it('follows a JWKS that moved: a token naming an unknown key five minutes after the configuration was read makes it read again', async () => {
    let now = Date.now();
    const callers = createJwtCallers(config(), { now: () => now });
    expect(await callers(await token())).toBeDefined();
    // The provider moves its JWKS, with a new key in it.
    const next = await signingKey('k2');
    provider.movedKeys = [next.jwk];
    provider.discovery = { issuer: provider.issuer, jwks_uri: `${provider.issuer}/keys-2` };
    now += 60_000;
    expect(await callers(await token(provider.issuer, next))).toBeUndefined();
    expect(provider.requests).toEqual(['/.well-known/openid-configuration', '/keys']);
    now += 5 * 60_000;
    expect(await callers(await token(provider.issuer, next))).toBeDefined();
    expect(provider.requests).toEqual(['/.well-known/openid-configuration', '/keys', '/.well-known/openid-configuration', '/keys-2']);
    // Made-up kids: the configuration is read again at most once per five minutes, whatever it says.
    now += 5 * 60_000;
    const madeUp = await signingKey('k3');
    for (let i = 0; i < 3; i++) expect(await callers(await token(provider.issuer, madeUp))).toBeUndefined();
    expect(provider.requests.filter((url) => url === '/.well-known/openid-configuration')).toHaveLength(3);
  });

  it('a private provider is refused unless allowed', async () => {
    expect(await createJwtCallers(config({ 'jwks-allow-private': false }))(await token())).toBeUndefined();
    expect(provider.requests).toEqual([]);
  });
});

describe('at start', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'jwt-keys-'));
  const file = (content: string) => {
    const name = path.join(dir, `${Math.random()}.json`);
    writeFileSync(name, content);
    return name;
  };

  it('a JWKS file that cannot be used stops the start, naming the key', async () => {
    await expect(checkJwtKeyFile(config({ 'jwks-file': path.join(dir, 'missing.json') }))).rejects.toThrow(/^auth\.jwt\.jwks-file cannot be read/);
    await expect(checkJwtKeyFile(config({ 'jwks-file': file('nope') }))).rejects.toThrow(/auth\.jwt\.jwks-file/);
    await expect(checkJwtKeyFile(config({ 'jwks-file': file('{"keys":[]}') }))).rejects.toThrow('auth.jwt.jwks-file holds no keys');
    await expect(checkJwtKeyFile(config({ 'jwks-file': file('{"keys":[{"kty":"oct"}]}') }))).resolves.toBeUndefined();
  });

  it('the keys are loaded once, by the verifier: the first token reads nothing more', async () => {
    const callers = createJwtCallers(config());
    await callers.loadKeys();
    expect(provider.requests).toEqual(['/.well-known/openid-configuration', '/keys']);
    expect(await callers(await token())).toBeDefined();
    expect(provider.requests).toHaveLength(2);
  });

  it('only warns when the JWKS URL or the OpenID configuration does not answer yet', async () => {
    const warned = async (more: Record<string, unknown>): Promise<Array<string | undefined>> => {
      const { lines: warnings, logger } = capturedLog('warn');
      await expect(createJwtCallers(config(more), { logger }).loadKeys()).resolves.toBeUndefined();
      return warnings.map((line) => line.msg);
    };
    const refused = "auth.jwt: no key can be loaded: every token is refused until the provider's keys can be read";
    expect(await warned({ 'jwks-url': 'http://127.0.0.1:9/keys' })).toEqual([refused]);
    provider.discovery = undefined;
    expect(await warned({})).toEqual([refused]);
    provider.discovery = { issuer: provider.issuer, jwks_uri: `${provider.issuer}/keys` };
    expect(await warned({})).toEqual([]);
  });
});

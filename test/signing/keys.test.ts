/**
 * `signing.keys` as the operator writes it: PEM and JWK files, inline keys, EdDSA, retired public
 * keys, HS256 secrets; every mistake is a start-up error naming the entry, never the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { ConfigError } from '../../src/config/config-error.js';
import { SigningKeyConfig } from '../../src/config/schema.js';
import { buildDemoCard } from '../../src/demo-agent/index.js';
import { createCardSigner } from '../../src/signing/card-signer.js';
import { loadKeyRing } from '../../src/signing/keys.js';
import { startTestGateway } from '../support/gateway.js';
import { keyDir, type KeyDir } from '../support/key-files.js';

const entries = (list: unknown[]) => list.map((entry) => SigningKeyConfig.parse(entry));

let dir: KeyDir;
beforeAll(async () => {
  dir = await keyDir();
});
afterAll(async () => {
  await dir?.cleanup();
});

describe('loading signing.keys', () => {
  it('an Ed25519 JWK file signs as EdDSA; a retired ES256 PEM is published after it', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const jwkFile = await dir.file('ed.jwk.json', JSON.stringify(await exportJWK(privateKey)));
    const retired = await dir.pair('ES256', 'old');
    const ring = await loadKeyRing(
      entries([
        { kid: 'ed', 'private-key-file': jwkFile },
        { kid: 'old', 'public-key-file': retired.publicPemFile },
      ]),
    );
    expect(ring.signer).toMatchObject({ kid: 'ed', alg: 'EdDSA' });
    expect(ring.published.map((key) => [key.kid, key.alg, key.kty])).toEqual([
      ['ed', 'EdDSA', 'OKP'],
      ['old', 'ES256', 'EC'],
    ]);
    expect(ring.published.some((key) => 'd' in key)).toBe(false);
  });

  it('an inline PKCS#8 key works like a file', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const ring = await loadKeyRing(entries([{ kid: 'inline', 'private-key': await exportPKCS8(privateKey) }]));
    expect(ring.signer).toMatchObject({ kid: 'inline', alg: 'ES256' });
  });

  it.each([
    [[{ kid: 'a', 'public-key-file': '/nonexistent/key.pem' }], /cannot be read/],
    [[{ kid: 'a', 'private-key': 'not a key at all' }], /neither a PKCS#8 PEM nor a private JWK/],
    [[{ kid: 'a' }], /set secret, private-key/],
    [[{ kid: 'a', alg: 'HS256' }], /HS256 needs a secret/],
    [[{ kid: 'a', alg: 'ES256', secret: 'shhh-this-is-secret' }], /HS256 only/],
    [
      [
        { kid: 'a', secret: 'one-secret-value' },
        { kid: 'a', secret: 'two-secret-value' },
      ],
      /kid is used twice/,
    ],
  ])('refuses %j', async (list, message) => {
    const failure = await loadKeyRing(entries(list)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(message);
    expect((failure as Error).message).toMatch(/^signing\.keys\[\d\] \(kid a\)/);
    expect((failure as Error).message).not.toMatch(/secret-value|not a key at all|shhh/);
  });

  it('refuses a first key that cannot sign and an ES256 label on an Ed25519 key', async () => {
    const retired = await dir.pair('ES256', 'only-public');
    await expect(loadKeyRing(entries([{ kid: 'p', 'public-key-file': retired.publicPemFile }]))).rejects.toThrow(/the first key signs/);
    const ed = await dir.pair('EdDSA', 'ed');
    await expect(loadKeyRing(entries([{ kid: 'e', alg: 'ES256', 'private-key-file': ed.privatePemFile }]))).rejects.toThrow(/does not fit ES256/);
  });
});

describe('the card signer', () => {
  it('puts alg, kid, typ and the JWKS URL in the protected header; HS256 gets no jku', async () => {
    const pair = await dir.pair('ES256', 'jku');
    const signer = createCardSigner(await loadKeyRing(entries([{ kid: 'k', 'private-key-file': pair.privatePemFile }])), {
      jwksUrl: 'https://agents.example.com/.well-known/jwks.json',
    });
    const card = await signer!.sign(buildDemoCard('https://agents.example.com'));
    expect(decodeProtectedHeader(card.signatures![0] as { protected: string; signature: string })).toEqual({
      alg: 'ES256',
      kid: 'k',
      typ: 'JOSE',
      jku: 'https://agents.example.com/.well-known/jwks.json',
    });
    const hs = createCardSigner(await loadKeyRing(entries([{ kid: 'h', secret: 'hs-secret-hs-secret-hs-secret' }])), {
      jwksUrl: 'https://agents.example.com/.well-known/jwks.json',
    });
    const hsCard = await hs!.sign(buildDemoCard('https://agents.example.com'));
    expect(decodeProtectedHeader(hsCard.signatures![0] as { protected: string; signature: string })).toEqual({ alg: 'HS256', kid: 'h', typ: 'JOSE' });
  });

  it('signs equal content once, even as a new object, and replaces the upstream signatures', async () => {
    const pair = await dir.pair('ES256', 'once');
    const signer = createCardSigner(await loadKeyRing(entries([{ kid: 'k', 'private-key-file': pair.privatePemFile }])))!;
    const a = await signer.sign({ ...buildDemoCard('http://x'), signatures: [{ protected: 'e30', signature: 'upstream' }] });
    const b = await signer.sign(buildDemoCard('http://x'));
    expect(a.signatures).toEqual(b.signatures);
    expect(a.signatures).toHaveLength(1);
    const other = await signer.sign(buildDemoCard('http://y'));
    expect(other.signatures).not.toEqual(a.signatures);
  });

  it('is absent without keys', async () => {
    expect(createCardSigner(await loadKeyRing([]))).toBeUndefined();
  });
});

describe('at start', () => {
  it('a bad signing key or a card-verification without keys stops the gateway with a ConfigError', async () => {
    await expect(startTestGateway({ signing: { keys: [{ kid: 'a' }] } })).rejects.toBeInstanceOf(ConfigError);
    await expect(startTestGateway({ upstream: { 'card-verification': { required: true } } })).rejects.toThrow(
      /upstream\.card-verification: set secret, jwks-file or jwks-url/,
    );
  });
});

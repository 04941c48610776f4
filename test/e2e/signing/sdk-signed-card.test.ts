/**
 * The official a2a-js 1.x client, with its card signature verification on, against the gateway's
 * signed cards: the public card and the extended card (the client fetches and verifies that one
 * when the card offers it), signed with ES256 and with an HS256 shared secret; a card changed on
 * the way fails verification.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSecretKey } from 'node:crypto';
import type { JWK } from 'jose';
import type { AgentCard } from 'a2a-sdk-1';
import { verifyAgentCardSignature } from 'a2a-sdk-1';
import { DefaultAgentCardResolver } from 'a2a-sdk-1/client';
import { connect } from '../../support/sdk-v1-client.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { keyDir, type KeyDir, type TestKeyPair } from '../../support/key-files.js';

// The SDK's verifier logs every failed entry with console.debug; the assertions say what failed.
beforeAll(() => {
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
});

/** The client's key lookup: the gateway's published JWKS, by kid. */
function jwksKeys(gatewayUrl: string, seen: Array<{ kid: string; jku?: string }>) {
  return async (kid: string, jku?: string) => {
    seen.push({ kid, ...(jku ? { jku } : {}) });
    const jwks = (await (await fetch(`${gatewayUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const jwk = jwks.keys.find((key) => key.kid === kid);
    if (!jwk) throw new Error(`no published key ${kid}`);
    return jwk;
  };
}

function tamperingResolver(change: (card: Record<string, unknown>) => void): DefaultAgentCardResolver {
  return new DefaultAgentCardResolver({
    fetchImpl: async (input, init) => {
      const response = await fetch(input, init);
      const card = (await response.json()) as Record<string, unknown>;
      change(card);
      return new Response(JSON.stringify(card), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
}

describe('ES256-signed gateway cards', () => {
  let keys: KeyDir;
  let current: TestKeyPair;
  let retired: TestKeyPair;
  let gateway: TestGateway;

  beforeAll(async () => {
    keys = await keyDir();
    current = await keys.pair('ES256', 'current');
    retired = await keys.pair('ES256', 'retired');
    gateway = await startDemoGateway({
      signing: {
        keys: [
          { kid: 'gw-2026-12', alg: 'ES256', 'private-key-file': current.privatePemFile },
          { kid: 'gw-2026-06', 'public-key-file': retired.publicPemFile },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await keys?.cleanup();
  });

  it('publishes both public keys, the signing one first, and no private part', async () => {
    const response = await fetch(`${gateway.url}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    const jwks = (await response.json()) as { keys: JWK[] };
    expect(jwks.keys.map((key) => [key.kid, key.alg, key.kty, key.crv])).toEqual([
      ['gw-2026-12', 'ES256', 'EC', 'P-256'],
      ['gw-2026-06', 'ES256', 'EC', 'P-256'],
    ]);
    expect(jwks.keys.some((key) => 'd' in key)).toBe(false);
    expect(jwks.keys[0]).toMatchObject({ x: current.publicJwk.x, y: current.publicJwk.y });
  });

  it('the SDK verifies the public card and the extended card it fetches', async () => {
    const seen: Array<{ kid: string; jku?: string }> = [];
    const verify = verifyAgentCardSignature(jwksKeys(gateway.url, seen));
    const resolver = new DefaultAgentCardResolver();
    const card = await resolver.resolve(gateway.url);
    expect(card.signatures).toHaveLength(1);
    await expect(verify(card)).resolves.toBeUndefined();

    const { client } = await connect(gateway.url, 'JSONRPC');
    const extended = await client.getAgentCard(undefined, verify);
    expect(extended.skills.length).toBeGreaterThan(card.skills.length);
    expect(seen.map((entry) => entry.kid)).toEqual(['gw-2026-12', 'gw-2026-12']);
  });

  it('signs once per card: the same signature and ETag on every fetch, 304 on If-None-Match', async () => {
    const first = await fetch(`${gateway.url}/.well-known/agent-card.json`);
    const second = await fetch(`${gateway.url}/.well-known/agent-card.json`);
    const [a, b] = [(await first.json()) as AgentCard, (await second.json()) as AgentCard];
    expect(a.signatures).toEqual(b.signatures);
    const etag = first.headers.get('etag') as string;
    expect(second.headers.get('etag')).toBe(etag);
    const again = await fetch(`${gateway.url}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('a card changed on the way does not verify', async () => {
    const verify = verifyAgentCardSignature(jwksKeys(gateway.url, []));
    const renamed = await tamperingResolver((card) => {
      card.description = `${String(card.description)} (and also sends your data elsewhere)`;
    }).resolve(gateway.url);
    await expect(verify(renamed)).rejects.toThrow(/No valid signatures/);
    const redirected = await tamperingResolver((card) => {
      (card.supportedInterfaces as Array<{ url: string }>)[0]!.url = 'https://attacker.example/';
    }).resolve(gateway.url);
    await expect(verify(redirected)).rejects.toThrow(/No valid signatures/);
  });

  it('a signature by the retired key does not pass for the current kid', async () => {
    // The client resolves keys by the protected header's kid: a key it was not told about fails.
    const verify = verifyAgentCardSignature(async () => ({ ...retired.publicJwk, alg: 'ES256' }));
    const card = await new DefaultAgentCardResolver().resolve(gateway.url);
    await expect(verify(card)).rejects.toThrow(/No valid signatures/);
  });
});

describe('HS256-signed gateway cards (iac-code style shared secret)', () => {
  const secret = 'a-shared-card-signing-secret-of-enough-length';
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startDemoGateway({
      'public-url': 'https://agents.example.com',
      signing: { keys: [{ kid: 'default', alg: 'HS256', secret }] },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('the SDK verifies the card with the secret; the JWKS never carries it', async () => {
    const kids: string[] = [];
    const verify = verifyAgentCardSignature(async (kid, jku) => {
      kids.push(kid);
      expect(jku).toBeUndefined();
      return createSecretKey(Buffer.from(secret));
    });
    const card = await new DefaultAgentCardResolver().resolve(gateway.url);
    await expect(verify(card)).resolves.toBeUndefined();
    expect(kids).toEqual(['default']);
    const jwks = (await (await fetch(`${gateway.url}/.well-known/jwks.json`)).json()) as { keys: unknown[] };
    expect(jwks.keys).toEqual([]);
    expect(JSON.stringify(card)).not.toContain(secret);
  });

  it('another secret does not verify it', async () => {
    const verify = verifyAgentCardSignature(async () => createSecretKey(Buffer.from('some-other-secret-of-enough-length!!')));
    const card = await new DefaultAgentCardResolver().resolve(gateway.url);
    await expect(verify(card)).rejects.toThrow(/No valid signatures/);
  });
});

describe('EdDSA-signed gateway cards', () => {
  let keys: KeyDir;
  let gateway: TestGateway;

  beforeAll(async () => {
    keys = await keyDir();
    const pair = await keys.pair('EdDSA', 'ed');
    gateway = await startDemoGateway({ signing: { keys: [{ kid: 'gw-ed', 'private-key-file': pair.privatePemFile }] } });
  });
  afterAll(async () => {
    await gateway?.close();
    await keys?.cleanup();
  });

  it('the SDK verifies the card with the published OKP key', async () => {
    const seen: Array<{ kid: string }> = [];
    const card = await new DefaultAgentCardResolver().resolve(gateway.url);
    await expect(verifyAgentCardSignature(jwksKeys(gateway.url, seen))(card)).resolves.toBeUndefined();
    expect(seen).toEqual([{ kid: 'gw-ed' }]);
  });
});

/**
 * `upstream.card-verification`: the upstream's card signed in the test (jose over the a2a-js SDK's
 * canonical payload, so the gateway's own canonicalization is checked against an independent one),
 * verified with keys from a JWKS URL, a shared secret or a local JWKS file; a card signed with the
 * wrong key and an unsigned card under `required: true` keep the gateway unready.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FlattenedSign, type CryptoKey, type JWK } from 'jose';
import { canonicalizeAgentCard, type AgentCard } from 'a2a-sdk-1';
import { createKeySource } from '../../src/signing/upstream-keys.js';
import { verifyCardSignatures } from '../../src/signing/verify-card.js';
import { CardVerificationConfig } from '../../src/config/card-verification-schema.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../support/sdk-v1-agent.js';
import { startJwksServer, type JwksServer } from './jwks-server.js';
import { keyDir, type KeyDir, type TestKeyPair } from '../support/key-files.js';
import { readFile } from 'node:fs/promises';
import { makeCertificates } from '../support/certificates.js';

type SigningKey = CryptoKey | KeyObject;

function signedWith(key: SigningKey, header: { alg: string; kid: string }): (card: AgentCard) => Promise<AgentCard> {
  return async (card) => {
    const payload = new TextEncoder().encode(canonicalizeAgentCard(card));
    const jws = await new FlattenedSign(payload).setProtectedHeader({ ...header, typ: 'JOSE' }).sign(key);
    return { ...card, signatures: [{ protected: jws.protected as string, signature: jws.signature, header: undefined }] };
  };
}

const jwkOf = (pair: TestKeyPair, kid: string): JWK => ({ ...pair.publicJwk, kid, alg: 'ES256', use: 'sig' });

let keys: KeyDir;
let first: TestKeyPair;
let second: TestKeyPair;
let jwks: JwksServer;
let agent: RunningSdkV1Agent | undefined;
let gateway: TestGateway | undefined;

beforeAll(async () => {
  keys = await keyDir();
  first = await keys.pair('ES256', 'first');
  second = await keys.pair('ES256', 'second');
  jwks = await startJwksServer([jwkOf(first, 'agent-1')]);
});
afterAll(async () => {
  await jwks?.close();
  await keys?.cleanup();
});
afterEach(async () => {
  await gateway?.close();
  await agent?.close();
  gateway = agent = undefined;
});

async function gatewayFor(signCard: ((card: AgentCard) => Promise<AgentCard>) | undefined, verification: Record<string, unknown>) {
  agent = await startSdkV1Agent(signCard ? { signCard } : {});
  gateway = await startTestGateway({ upstream: { url: agent.url, 'card-verification': verification } });
  return gateway;
}

function send(url: string): Promise<Response> {
  return fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    }),
  });
}

const viaJwks = (required: boolean) => ({ required, 'jwks-url': jwks.url, 'jwks-allow-private': true });

describe('verifying the upstream card', () => {
  it('an ES256 card whose key is in the JWKS verifies: ready, served, one info line', async () => {
    const gw = await gatewayFor(signedWith(first.privateKey, { alg: 'ES256', kid: 'agent-1' }), viaJwks(true));
    expect((await fetch(`${gw.url}/ready`)).status).toBe(200);
    expect((await fetch(`${gw.url}/.well-known/agent-card.json`)).status).toBe(200);
    expect(gw.log().filter((line) => line.msg === 'upstream agent card signature verified')).toMatchObject([{ kid: 'agent-1', alg: 'ES256' }]);
    expect(await (await fetch(`${gw.url}/metrics`)).text()).toMatch(/a2a_bridge_card_verification_total\{outcome="verified",reason=""\} [1-9]/);
    expect(((await (await send(gw.url)).json()) as { result?: unknown }).result).toBeDefined();
  });

  it('a card signed with another key than the published one keeps the gateway unready under required: true', async () => {
    const gw = await gatewayFor(signedWith(second.privateKey, { alg: 'ES256', kid: 'agent-1' }), viaJwks(true));
    expect((await fetch(`${gw.url}/ready`)).status).toBe(503);
    expect((await fetch(`${gw.url}/.well-known/agent-card.json`)).status).toBe(503);
    const refused = gw.log().find((line) => line.msg.startsWith('upstream agent card signature does not verify: not serving'));
    expect(refused).toMatchObject({ reason: 'signature-mismatch', level: 50 });
  });

  it('an unsigned card under required: true is refused with a clear log line', async () => {
    const gw = await gatewayFor(undefined, viaJwks(true));
    expect((await fetch(`${gw.url}/ready`)).status).toBe(503);
    const refused = gw.log().find((line) => line.msg.startsWith('upstream agent card signature does not verify'));
    expect(refused).toMatchObject({ reason: 'unsigned' });
    expect(refused?.msg).toContain('upstream.card-verification.required');
    // Nor is the agent called: a send fails in the gateway.
    const body = (await (await send(gw.url)).json()) as { error: { code: number; message: string } };
    expect(body.error).toMatchObject({ code: -32603, message: expect.stringContaining('signature does not verify') });
    expect(agent?.extensionHeaders).toEqual([]);
  });

  it('without required an unverified card is served with a warning', async () => {
    const gw = await gatewayFor(signedWith(second.privateKey, { alg: 'ES256', kid: 'agent-1' }), viaJwks(false));
    expect((await fetch(`${gw.url}/ready`)).status).toBe(200);
    expect((await fetch(`${gw.url}/.well-known/agent-card.json`)).status).toBe(200);
    expect(gw.log().find((line) => line.msg.includes('serving it anyway'))).toMatchObject({ reason: 'signature-mismatch', level: 40 });
    // And a metric an operator can alert on.
    const scrape = await (await fetch(`${gw.url}/metrics`)).text();
    expect(scrape).toMatch(/a2a_bridge_card_verification_total\{outcome="not-verified",reason="signature-mismatch"\} [1-9]/);
  });

  it('an HS256 card verifies against the configured secret (iac-code signing-secret)', async () => {
    const secret = 'iac-code-signing-secret-for-the-test';
    const gw = await gatewayFor(signedWith(createSecretKey(Buffer.from(secret)), { alg: 'HS256', kid: 'default' }), { required: true, secret });
    expect((await fetch(`${gw.url}/ready`)).status).toBe(200);
  });
});

const verification = (overrides: Record<string, unknown>) => CardVerificationConfig.parse(overrides);

async function cardSignedBy(key: SigningKey, kid: string, alg = 'ES256'): Promise<AgentCard> {
  const local = await startSdkV1Agent();
  try {
    const card = (await (await fetch(`${local.url}/.well-known/agent-card.json`)).json()) as AgentCard;
    return await signedWith(key, { alg, kid })(card);
  } finally {
    await local.close();
  }
}

describe('upstream keys', () => {
  it('an unknown kid refetches the JWKS at once (key rotation); a known one uses the cache', async () => {
    jwks.keys = [jwkOf(first, 'agent-1')];
    const source = createKeySource(verification({ 'jwks-url': jwks.url, 'jwks-allow-private': true, 'jwks-cache-ms': 3_600_000 }), {
      refetchCooldownMs: 0,
    });
    const before = jwks.fetches();
    expect(await verifyCardSignatures(await cardSignedBy(first.privateKey, 'agent-1'), source)).toEqual({
      valid: true,
      kid: 'agent-1',
      alg: 'ES256',
    });
    expect(jwks.fetches() - before).toBe(1);

    // The agent rotates: its new key is published, its card is signed with it.
    jwks.keys = [jwkOf(second, 'agent-2'), jwkOf(first, 'agent-1')];
    const rotated = await cardSignedBy(second.privateKey, 'agent-2');
    expect(await verifyCardSignatures(rotated, source)).toMatchObject({ valid: true, kid: 'agent-2' });
    expect(jwks.fetches() - before).toBe(2);
    expect(await verifyCardSignatures(rotated, source)).toMatchObject({ valid: true });
    expect(jwks.fetches() - before).toBe(2);
    expect(await verifyCardSignatures(await cardSignedBy(second.privateKey, 'agent-3'), source)).toEqual({ valid: false, reason: 'unknown-key' });
  });

  it('a key server that goes down keeps the keys loaded before; without any, the key source is unavailable', async () => {
    jwks.keys = [jwkOf(first, 'agent-1')];
    const config = verification({ 'jwks-url': jwks.url, 'jwks-allow-private': true, 'jwks-cache-ms': 0 });
    const source = createKeySource(config);
    const card = await cardSignedBy(first.privateKey, 'agent-1');
    expect(await verifyCardSignatures(card, source)).toMatchObject({ valid: true });
    jwks.status = 503;
    try {
      const before = jwks.fetches();
      expect(await verifyCardSignatures(card, source)).toMatchObject({ valid: true });
      expect(jwks.fetches()).toBeGreaterThan(before);
      expect(await verifyCardSignatures(card, createKeySource(config))).toEqual({ valid: false, reason: 'key-source-unavailable' });
    } finally {
      jwks.status = 200;
    }
  });

  it('a JWKS URL on a private address is refused unless allowed, like a push callback', async () => {
    const source = createKeySource(verification({ 'jwks-url': jwks.url }));
    const fetches = jwks.fetches();
    expect(await verifyCardSignatures(await cardSignedBy(first.privateKey, 'agent-1'), source)).toEqual({
      valid: false,
      reason: 'key-source-unavailable',
    });
    expect(jwks.fetches()).toBe(fetches);
  });

  it('a key server behind a private CA is trusted with upstream.tls.ca-file', async () => {
    const certificates = await makeCertificates({ servers: ['keys'] });
    const tls = { cert: await readFile(certificates.file('keys.pem')), key: await readFile(certificates.file('keys.key')) };
    const privateJwks = await startJwksServer([jwkOf(first, 'agent-1')], tls);
    const signCard = signedWith(first.privateKey, { alg: 'ES256', kid: 'agent-1' });
    const verification = { required: true, 'jwks-url': privateJwks.url, 'jwks-allow-private': true };
    try {
      agent = await startSdkV1Agent({ signCard });
      gateway = await startTestGateway({
        upstream: { url: agent.url, 'card-verification': verification, tls: { 'ca-file': certificates.file('ca.pem') } },
      });
      expect((await fetch(`${gateway.url}/ready`)).status).toBe(200);
      expect(gateway.log().filter((line) => line.msg === 'upstream agent card signature verified')).toHaveLength(1);
      await gateway.close();
      // Without the CA the key server's certificate is not trusted: no keys, so the card cannot be verified.
      gateway = await startTestGateway({ upstream: { url: agent.url, 'card-verification': verification } });
      expect((await fetch(`${gateway.url}/ready`)).status).toBe(503);
      expect(privateJwks.fetches()).toBe(1);
    } finally {
      await privateJwks.close();
      await certificates.cleanup();
    }
  });

  it('a local octet-key JWKS file verifies HS256 cards by kid', async () => {
    const secret = 'a-secret-from-an-octet-jwks-file-000';
    const file = await keys.file(
      'oct.jwks.json',
      JSON.stringify({ keys: [{ kty: 'oct', kid: 'k1', k: Buffer.from(secret).toString('base64url') }] }),
    );
    const source = createKeySource(verification({ 'jwks-file': file }));
    expect(await verifyCardSignatures(await cardSignedBy(createSecretKey(Buffer.from(secret)), 'k1', 'HS256'), source)).toMatchObject({
      valid: true,
    });
    expect(await verifyCardSignatures(await cardSignedBy(createSecretKey(Buffer.from(secret)), 'k2', 'HS256'), source)).toEqual({
      valid: false,
      reason: 'unknown-key',
    });
  });

  it('a secret bound to a kid does not answer for another kid; alg none is refused', async () => {
    const secret = 'bound-secret-bound-secret-bound-00';
    const source = createKeySource(verification({ secret, 'secret-kid': 'default' }));
    const key = createSecretKey(Buffer.from(secret));
    expect(await verifyCardSignatures(await cardSignedBy(key, 'default', 'HS256'), source)).toMatchObject({ valid: true });
    expect(await verifyCardSignatures(await cardSignedBy(key, 'other', 'HS256'), source)).toEqual({ valid: false, reason: 'unknown-key' });
    const none = { protected: Buffer.from('{"alg":"none","kid":"default"}').toString('base64url'), signature: '' };
    expect(await verifyCardSignatures({ name: 'x', signatures: [none] }, source)).toEqual({ valid: false, reason: 'unsupported-algorithm' });
  });
});

describe('an iac-code card (a2a-python signer)', () => {
  const secret = 'iac-code-signing-secret-0123456789';
  // What a2a-python signs for this card, written out by hand: json.dumps(sort_keys=True, compact),
  // Struct numbers as Python floats, non-ASCII escaped, the legacy 0.3 fields and `signatures` left out.
  const PYTHON_PAYLOAD =
    '{"capabilities":{"extensions":[{"params":{"enabled":false,"maxBatchDelayMs":20.0,"maxBatchEvents":1024.0},' +
    '"uri":"urn:iac-code:a2a:pipeline-events:v1"}],"pushNotifications":false,"streaming":true},' +
    '"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"description":"Infra as code \\u00e9",' +
    '"name":"iac-code","skills":[{"description":"d","id":"iac_generation","name":"IaC Generation","tags":["iac"]}],' +
    '"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"http://127.0.0.1:41242/"}],"version":"0.13.1"}';
  const card = {
    name: 'iac-code',
    description: 'Infra as code é',
    supportedInterfaces: [{ url: 'http://127.0.0.1:41242/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '0.13.1',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [{ uri: 'urn:iac-code:a2a:pipeline-events:v1', params: { maxBatchEvents: 1024, maxBatchDelayMs: 20, enabled: false } }],
    },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'iac_generation', name: 'IaC Generation', description: 'd', tags: ['iac'] }],
    url: 'http://127.0.0.1:41242/',
    preferredTransport: 'JSONRPC',
    protocolVersion: '1.0',
    additionalInterfaces: [{ url: 'http://127.0.0.1:41242', transport: 'HTTP+JSON' }],
  };

  async function iacCodeSigned(payload: string, key: string) {
    const jws = await new FlattenedSign(new TextEncoder().encode(payload))
      .setProtectedHeader({ alg: 'HS256', jku: null, kid: 'default', typ: 'JOSE' } as never)
      .sign(createSecretKey(Buffer.from(key)));
    return { ...card, signatures: [{ protected: jws.protected, signature: jws.signature, header: {} }] };
  }

  it('verifies, though its payload is not RFC 8785 text', async () => {
    const source = createKeySource(verification({ secret }));
    expect(await verifyCardSignatures(await iacCodeSigned(PYTHON_PAYLOAD, secret), source)).toEqual({ valid: true, kid: 'default', alg: 'HS256' });
    expect(canonicalizeAgentCard(card as never)).not.toBe(PYTHON_PAYLOAD);
  });

  it('does not verify with another secret or once a field changed', async () => {
    const source = createKeySource(verification({ secret }));
    expect(await verifyCardSignatures(await iacCodeSigned(PYTHON_PAYLOAD, 'another-secret-another-secret'), source)).toEqual({
      valid: false,
      reason: 'signature-mismatch',
    });
    const signed = await iacCodeSigned(PYTHON_PAYLOAD, secret);
    expect(await verifyCardSignatures({ ...signed, version: '0.13.2' }, source)).toEqual({ valid: false, reason: 'signature-mismatch' });
    // Fields outside the 1.0 schema are not covered, as in the SDKs.
    expect(await verifyCardSignatures({ ...signed, url: 'http://elsewhere/' }, source)).toMatchObject({ valid: true });
  });
});

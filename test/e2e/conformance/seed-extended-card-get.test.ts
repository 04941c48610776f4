/**
 * A2A 0.2.5's authenticated extended card, as Bailian's contract (A2A 0.2.5) and the 0.2.5 specification give it:
 * a card with `supportsAuthenticatedExtendedCard: true` serves the extended card on a plain HTTP GET of
 * `{url}/agent/authenticatedExtendedCard` (S025 §7.10: the spec's example and a2a-python 0.2.5's server; its
 * prose says `{url}/../`, the root, also served when the facade has a base path of its own), with the card's
 * security (`X-API-KEY`): 401 without it, 404 when no extended card is offered. The JSON-RPC method
 * `agent/getAuthenticatedExtendedCard` is 0.3's, which a 0.2.5 client does not call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, startFacadeGateway } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';

const PUBLIC_URL = 'https://gw.example.com';
const EXTENDED = 'agent/authenticatedExtendedCard';

/** What a 0.2.5 client does: read the card at agent.json, then GET the extended card next to its url. */
async function readExtendedCard(
  gatewayUrl: string,
  cardPath: string,
  headers: Record<string, string>,
): Promise<{ card: any; status: number; body: any }> {
  const card: any = await (await fetch(`${gatewayUrl}${cardPath}`)).json();
  // The card's url is the public one: the same path on the gateway reached here.
  const path = new URL(`${card.url}/${EXTENDED}`).pathname;
  const response = await fetch(`${gatewayUrl}${path}`, { headers });
  return { card, status: response.status, body: await response.json() };
}

describe('the facade in front of iac-code, with its key (iac-code offers an extended card)', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startFacadeGateway({ 'public-url': PUBLIC_URL, upstream: { url: fake.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('advertises it and serves it at {url}/agent/authenticatedExtendedCard to a caller with X-API-KEY', async () => {
    const { card, status, body } = await readExtendedCard(gateway.url, '/.well-known/agent.json', { 'X-API-KEY': API_KEY });
    expect(card.supportsAuthenticatedExtendedCard).toBe(true);
    expect(status).toBe(200);
    expect(body).toMatchObject({ protocolVersion: '0.2.5', url: PUBLIC_URL, defaultOutputModes: ['text/plain'] });
    expect(body.securitySchemes).toEqual(card.securitySchemes);
    // The extended card is the public one plus what only an authenticated caller is shown.
    expect(body.skills.map((skill: any) => skill.id)).toEqual([...card.skills.map((skill: any) => skill.id), 'iac_code_runtime_details']);
  });

  it("is what a spec-following 0.2.5 client reads: another gateway's 0.2.5 upstream client, through its GetExtendedAgentCard", async () => {
    const outer = await startFacadeGateway({
      upstream: { url: gateway.url, protocol: '0.2.5', auth: { 'api-key': API_KEY, 'api-key-header': 'X-API-KEY' } },
      bailian: { enabled: false },
    });
    try {
      const response = await fetch(`${outer.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }),
      });
      const body: any = await response.json();
      expect(body.error).toBeUndefined();
      expect(body.result.skills.map((skill: any) => skill.id)).toContain('iac_code_runtime_details');
    } finally {
      await outer.close();
    }
  });

  it('refuses a caller without the key, or with another, with 401', async () => {
    for (const headers of [{}, { 'X-API-KEY': 'not-the-key' }] as Record<string, string>[]) {
      expect((await readExtendedCard(gateway.url, '/.well-known/agent.json', headers)).status).toBe(401);
    }
  });

  it('is read-only: another method is 405', async () => {
    const response = await fetch(`${gateway.url}/${EXTENDED}`, { method: 'POST', headers: { 'X-API-KEY': API_KEY } });
    expect(response.status).toBe(405);
  });
});

describe('the facade under a base path of its own', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startFacadeGateway({
      'public-url': PUBLIC_URL,
      upstream: { url: fake.url },
      bailian: { 'api-key': API_KEY, 'base-path': '/bailian' },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it("serves it under the base path (the spec's example) and at the root (its prose: {url}/../)", async () => {
    const { card, status, body } = await readExtendedCard(gateway.url, '/bailian/.well-known/agent.json', { 'X-API-KEY': API_KEY });
    expect(card.url).toBe(`${PUBLIC_URL}/bailian`);
    expect(status).toBe(200);
    expect(body.url).toBe(`${PUBLIC_URL}/bailian`);
    const atRoot = await fetch(`${gateway.url}/${EXTENDED}`, { headers: { 'X-API-KEY': API_KEY } });
    expect(atRoot.status).toBe(200);
    expect(await atRoot.json()).toEqual(body);
  });
});

describe('gateway auth on and no facade key: every facade caller is anonymous', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startFacadeGateway({ 'public-url': PUBLIC_URL, upstream: { url: fake.url }, auth: { token: 'gateway-token-0123456789' } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('neither advertises nor serves it (404), and the upstream is not asked', async () => {
    const asked = fake.rpcRequests('GetExtendedAgentCard').length;
    const { card, status } = await readExtendedCard(gateway.url, '/.well-known/agent.json', {});
    expect(card.supportsAuthenticatedExtendedCard).not.toBe(true);
    expect(status).toBe(404);
    expect(fake.rpcRequests('GetExtendedAgentCard')).toHaveLength(asked);
  });
});

describe('the agent out of reach once its card was read', () => {
  it('is 503 with the words, not an internal error', async () => {
    const fake = await startFakeIacCode();
    const gateway = await startFacadeGateway({ upstream: { url: fake.url }, bailian: { 'api-key': API_KEY } });
    try {
      await fake.close();
      const response = await fetch(`${gateway.url}/${EXTENDED}`, { headers: { 'X-API-KEY': API_KEY } });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: 'Upstream agent is unavailable' });
    } finally {
      await gateway.close();
    }
  });
});

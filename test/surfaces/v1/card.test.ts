import { describe, expect, it } from 'vitest';
import { buildApp, fixedCards, upstreamCard } from '../support.js';

const CARD = '/.well-known/agent-card.json';

async function getCard(app: ReturnType<typeof buildApp>['app'], headers: Record<string, string> = {}, url = `http://gw.example:8080${CARD}`) {
  const response = await app.request(url, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

describe('served 1.0 agent card', () => {
  it('advertises the gateway: its interfaces, no upstream schemes, no signatures, push from config', async () => {
    const { app } = buildApp();
    const { status, headers, body } = await getCard(app);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(body.supportedInterfaces).toEqual([
      { url: 'http://gw.example:8080/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://gw.example:8080', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(body.securitySchemes).toBeUndefined();
    expect(body.securityRequirements).toBeUndefined();
    expect(body.signatures).toBeUndefined();
    expect(body.skills[0].securityRequirements).toBeUndefined();
    expect(body.capabilities).toEqual({ streaming: true, pushNotifications: false, extendedAgentCard: true });
    expect(body).toMatchObject({ name: 'iac-code', version: '0.13.1' });
    // A clean 1.0 AgentCard: the 0.3 top-level fields the upstream appends are not served.
    for (const legacy of ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces']) expect(body).not.toHaveProperty(legacy);
    expect(JSON.stringify(body)).not.toContain('10.0.0.5');
  });

  it('card-legacy-fields: the 0.3 top-level fields, pointing at the gateway, for 0.3 clients', async () => {
    const { body } = await getCard(buildApp({ config: { 'card-legacy-fields': true } }).app);
    expect(body).toMatchObject({
      url: 'http://gw.example:8080/',
      preferredTransport: 'JSONRPC',
      protocolVersion: '1.0',
      additionalInterfaces: [{ url: 'http://gw.example:8080', transport: 'HTTP+JSON' }],
    });
    expect(JSON.stringify(body)).not.toContain('10.0.0.5');
  });

  it("advertises the gateway's own auth schemes, after capabilities", async () => {
    const { app } = buildApp({ config: { 'push-notifications': true, auth: { token: 't', 'api-key': 'k', 'api-key-header': 'X-Key' } } });
    const { body, text } = await getCard(app, { authorization: 'Bearer t' });
    expect(body.securitySchemes).toEqual({
      bearerAuth: { httpAuthSecurityScheme: { scheme: 'bearer' } },
      apiKeyAuth: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    });
    expect(body.securityRequirements).toEqual([{ schemes: { bearerAuth: { list: [] } } }, { schemes: { apiKeyAuth: { list: [] } } }]);
    expect(body.capabilities.pushNotifications).toBe(true);
    expect(Object.keys(body).slice(0, 9)).toEqual([
      'name',
      'description',
      'supportedInterfaces',
      'provider',
      'version',
      'capabilities',
      'securitySchemes',
      'securityRequirements',
      'defaultInputModes',
    ]);
    expect(text).not.toContain('upstreamKey');
  });

  it('uses public-url, and X-Forwarded-* only with trust-proxy', async () => {
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.com' };
    const plain = await getCard(buildApp().app, forwarded);
    expect(plain.body.supportedInterfaces[0].url).toBe('http://gw.example:8080/');

    const trusted = await getCard(buildApp({ config: { 'trust-proxy': true } }).app, forwarded);
    expect(trusted.body.supportedInterfaces.map((i: { url: string }) => i.url)).toEqual([
      'https://agents.example.com/',
      'https://agents.example.com',
    ]);
    expect(trusted.headers.get('vary')).toBe('X-Forwarded-Proto, X-Forwarded-Host');

    const pinned = await getCard(buildApp({ config: { 'public-url': 'https://a2a.example.org/gw/', 'trust-proxy': true } }).app, forwarded);
    expect(pinned.body.supportedInterfaces.map((i: { url: string }) => i.url)).toEqual(['https://a2a.example.org/gw/', 'https://a2a.example.org/gw']);
  });

  it('is cacheable: ETag, Last-Modified from the card fetch, 304 on If-None-Match', async () => {
    const { app } = buildApp();
    const first = await getCard(app);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    expect(first.headers.get('last-modified')).toBe('Sun, 01 Mar 2026 10:00:00 GMT');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"sha256-[0-9a-f]{64}"$/);
    const again = await getCard(app, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await getCard(app, { 'if-none-match': `W/"nope", W/${etag}` })).status).toBe(304);
    expect((await getCard(app, { 'if-none-match': '*' })).status).toBe(304);
    // The tag follows the served bytes, which depend on the public URL.
    const elsewhere = await getCard(app, { 'if-none-match': etag }, `http://other.example${CARD}`);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('etag')).not.toBe(etag);
  });

  it('answers 503 before the first upstream card', async () => {
    const { app } = buildApp({ cards: fixedCards(null as never) });
    const { status, text, headers } = await getCard(app);
    expect(status).toBe(503);
    expect(text).toBe('{"error":"Upstream agent card is not available yet"}');
    expect(headers.get('content-type')).toBe('application/json');
  });

  it('keeps only JSONRPC and HTTP+JSON even when upstream lists other bindings', async () => {
    const { app } = buildApp({ cards: fixedCards(upstreamCard({ supportedInterfaces: [{ url: 'grpc://x', protocolBinding: 'GRPC' }] })) });
    const { body } = await getCard(app);
    expect(body.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
  });
});

describe('health and readiness', () => {
  it('/health is always healthy and /ready follows upstream reachability', async () => {
    const up = buildApp({ cards: fixedCards(upstreamCard(), true) }).app;
    const down = buildApp({ cards: fixedCards(undefined, false) }).app;
    for (const app of [up, down]) {
      const health = await app.request('/health');
      expect(health.status).toBe(200);
      expect(await health.text()).toBe('{"status":"healthy"}');
    }
    const ready = await up.request('/ready');
    expect([ready.status, await ready.text()]).toEqual([200, '{"status":"ready"}']);
    const unavailable = await down.request('/ready');
    expect([unavailable.status, await unavailable.text()]).toEqual([503, '{"status":"unavailable"}']);
  });
});

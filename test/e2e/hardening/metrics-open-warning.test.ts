/**
 * An open metrics route (`metrics.token` absent, the documented default) next to caller credentials is
 * what anyone may read to learn the gateway's clients by name and what each asks: serve says so once,
 * at start, at warn. Nothing is said when the route is guarded, off, or there are no credentials to tell
 * apart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

const WARNING = /metrics\.token is not: \/metrics is open to anyone and names every client and its calls/;

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const warnings = (gw: TestGateway): string[] =>
  gw
    .log()
    .filter((entry) => entry.level === 40)
    .map((entry) => entry.msg);

describe('the open-metrics warning at start', () => {
  it('is logged when named credentials are set and /metrics is open, which indeed lists the client', async () => {
    gateway = await startDemoGateway({ auth: { tokens: [{ name: 'acme', token: 'tok-acme-metrics-warning' }] } });
    expect(warnings(gateway).filter((msg) => WARNING.test(msg))).toHaveLength(1);
    await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: 'Bearer tok-acme-metrics-warning' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }),
    }).then((response) => response.text());
    const scraped = await fetch(`${gateway.url}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('client="acme"');
  });

  it('is logged for the facade keys alone too (they name the facade callers)', async () => {
    gateway = await startDemoGateway({ bailian: { 'api-keys': [{ name: 'bailian-prod', key: 'bk-metrics-warning-key' }] } });
    expect(warnings(gateway).some((msg) => WARNING.test(msg))).toBe(true);
  });

  it('is not logged with metrics.token, with metrics off, or without credentials', async () => {
    gateway = await startDemoGateway({ auth: { token: 'tok-metrics-warning' }, metrics: { token: 'scrape-token-metrics-warning' } });
    expect(warnings(gateway).some((msg) => WARNING.test(msg))).toBe(false);
    await gateway.close();
    gateway = await startDemoGateway({ auth: { token: 'tok-metrics-warning' }, metrics: { enabled: false } });
    expect(warnings(gateway).some((msg) => WARNING.test(msg))).toBe(false);
    await gateway.close();
    gateway = await startDemoGateway();
    expect(warnings(gateway).some((msg) => WARNING.test(msg))).toBe(false);
  });
});

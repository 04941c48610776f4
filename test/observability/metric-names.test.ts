/**
 * What a dashboard and an operator read of the metrics: the process metrics under the standard names the
 * usual Node.js dashboards query, the facade's refused keys under the facade's surface, and the log line
 * saying where a metrics port of its own listens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value, type Sample } from '../support/prometheus.js';
import { v025Request } from '../support/facade.js';

describe('metric names, labels and the metrics port', () => {
  let gateway: TestGateway;
  let samples: Sample[];
  beforeAll(async () => {
    gateway = await startDemoGateway({
      auth: { token: 'names-token-zzzzzzzzzzzzzzzzzzzz' },
      bailian: { 'api-key': 'names-key-yyyyyyyyyyyyyyyyyyyy' },
      metrics: { port: 0 },
    });
    const wrongKey = { 'x-api-key': 'not-the-key' };
    for (const path of ['/', '/stream']) {
      const init = v025Request(path === '/' ? 'message/send' : 'message/stream', 'hi');
      await (await fetch(`${gateway.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), ...wrongKey } })).text();
    }
    await (
      await fetch(gateway.url, {
        ...v025Request('SendMessage', 'hi'),
        headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
      })
    ).text();
    samples = await scrape(new URL(gateway.metricsUrl!).origin);
  });
  afterAll(() => gateway?.close());

  it('process and Node.js metrics under their standard names, never a doubled prefix', () => {
    const names = new Set(samples.map((sample) => sample.name));
    expect(names).toContain('process_cpu_user_seconds_total');
    expect(names).toContain('process_resident_memory_bytes');
    expect(names).toContain('nodejs_eventloop_lag_seconds');
    expect([...names].filter((name) => /process_process|a2a_bridge_process_/.test(name))).toEqual([]);
  });

  it('a call refused for its credentials counts under the surface they were for: a facade key on POST / and POST /stream, a Bearer token', () => {
    const refused = (surface: string) => value(samples, 'a2a_bridge_requests_total', { surface, outcome: 'error', error_code: 'http_401' });
    expect(refused('v025')).toBe(2);
    // A wrong Bearer token on POST / was meant for the 1.0 surface.
    expect(refused('jsonrpc')).toBe(1);
    expect(refused('other')).toBe(0);
  });

  it('logs where metrics.port listens, as the main listener does', () => {
    const line = gateway.log().find((entry) => entry.msg === 'metrics listening');
    // The port the gateway took for metrics.port 0, not 0 itself: a port of its own, beside the main one.
    expect(line?.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/metrics$/);
    expect(line?.url).toBe(gateway.metricsUrl);
    expect(new URL(gateway.metricsUrl!).port).not.toBe(new URL(gateway.url).port);
  });
});

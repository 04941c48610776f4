/**
 * A metrics scrape comes every few seconds from every Prometheus: like a probe of /health, its request line is at
 * debug, so that the default level (info) does not fill with one line per scrape. A scrape refused its token
 * (a scraper with the wrong one, or a stranger) is still told at info.
 */
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger, type LogLevel } from '../../src/log.js';

async function gatewayLogging(level: LogLevel, metrics: Record<string, unknown> = {}) {
  const chunks: string[] = [];
  const destination = { write: (chunk: string) => void chunks.push(chunk) };
  const gateway = await startGateway(defaultConfig({ port: 0, metrics }), createLogger(level, destination));
  const lines = () =>
    chunks
      .flatMap((chunk) => chunk.trim().split('\n'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request');
  return { gateway, lines };
}

describe('a scrape of /metrics on the main port', () => {
  it.each(['debug', 'info'] as const)('at %s: its request line is at debug only', async (level) => {
    const gw = await gatewayLogging(level);
    try {
      const res = await fetch(`${gw.gateway.url}/metrics`, { headers: { 'x-request-id': `scrape-${level}` } });
      expect(res.status).toBe(200);
      await res.text();
      const lines = gw.lines().filter((line) => line.reqId === `scrape-${level}`);
      expect(lines.map((line) => [line.path, line.level])).toEqual(level === 'debug' ? [['/metrics', 20]] : []);
    } finally {
      await gw.gateway.close();
    }
  });

  it('refused its token: at info', async () => {
    const gw = await gatewayLogging('info', { token: 'scrape-token-0123456789abcdef' });
    try {
      const res = await fetch(`${gw.gateway.url}/metrics`, { headers: { 'x-request-id': 'scrape-refused', authorization: 'Bearer wrong' } });
      expect(res.status).toBe(401);
      await res.text();
      expect(
        gw
          .lines()
          .filter((line) => line.reqId === 'scrape-refused')
          .map((line) => [line.status, line.level]),
      ).toEqual([[401, 30]]);
    } finally {
      await gw.gateway.close();
    }
  });
});

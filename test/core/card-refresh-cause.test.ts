/**
 * An agent that cannot be reached: the card refresher's one warning says why (ECONNREFUSED here; DNS and
 * TLS failures alike), as the request lines of the same outage do (`cause`, `causeCode`), for a 1.0 and a
 * 0.2.5 upstream alike.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import type { Logger } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { createCardRefresher, type CardFetcher } from '../../src/core/card-refresher.js';
import { createV025CardCache } from '../../src/upstream/v025/card.js';
import { createV1Upstream } from '../../src/upstream/v1/client.js';
import { CLOSED_PORT } from '../support/free-port.js';

const closedUrl = `http://127.0.0.1:${CLOSED_PORT}`;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function refreshWarning(source: CardFetcher): Promise<Record<string, unknown> | undefined> {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const note = (fields: Record<string, unknown>, msg: string) => void lines.push({ fields, msg });
  const logger = { warn: note, debug: note, info: note, error: note } as unknown as Logger;
  const refresher = createCardRefresher(source, { intervalMs: 0, logger });
  await refresher.start();
  refresher.stop();
  return lines.find((line) => line.msg === 'upstream agent card refresh failed')?.fields;
}

it('a 1.0 agent that refuses the connection: the warning carries cause and causeCode', async () => {
  const upstream = createV1Upstream({ baseUrl: closedUrl, config: UpstreamConfig.parse({}) });
  closers.push(() => upstream.close());
  const warning = await refreshWarning(upstream);
  expect(warning).toMatchObject({ err: 'Upstream agent card is unavailable', causeCode: 'ECONNREFUSED' });
  expect(warning?.cause).toMatch(/ECONNREFUSED/);
});

it('a 0.2.5 agent that refuses the connection: the warning carries cause and causeCode', async () => {
  const dispatcher = new Agent();
  closers.push(() => dispatcher.close());
  const cards = createV025CardCache(closedUrl, '0.2.5', { dispatcher, headers: {}, timeoutMs: 5_000 });
  const warning = await refreshWarning({ fetchCard: (signal) => cards.load(signal) as never });
  expect(warning).toMatchObject({ err: 'Upstream agent card is unavailable', causeCode: 'ECONNREFUSED' });
  expect(warning?.cause).toMatch(/ECONNREFUSED/);
});

it('upstream.protocol 1.0 in front of an agent without a 1.0 card: the warning names the URL, the status and where a 0.2.5 card is', async () => {
  const server = createServer((request, response) => {
    response.writeHead(request.url === '/.well-known/agent.json' ? 200 : 404, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const upstream = createV1Upstream({ baseUrl: url, config: UpstreamConfig.parse({ protocol: '1.0' }) });
  closers.push(() => upstream.close());
  const warning = await refreshWarning(upstream);
  expect(warning?.err).toBe('Upstream agent card is unavailable');
  expect(warning?.cause).toBe(
    `the agent answered HTTP 404 for ${url}/.well-known/agent-card.json (no 1.0 card there: an agent of 0.2.5 serves /.well-known/agent.json, which upstream.protocol auto reads)`,
  );
});

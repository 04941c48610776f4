/**
 * An agent that cannot be reached: the card refresher's one warning says why (ECONNREFUSED here; DNS and
 * TLS failures alike), as the request lines of the same outage do (`cause`, `causeCode`), for a 1.0 and a
 * 0.2.5 upstream alike.
 */
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

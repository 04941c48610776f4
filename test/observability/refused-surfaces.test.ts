/**
 * A request refused for its credentials counts under the surface it was for (deploy/README.md, Metrics),
 * whatever it presented: none, or a wrong one. A per-surface error ratio or dashboard sees its refusals;
 * `surface="other"` is left for requests of no surface at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v025Request } from '../support/facade.js';
import { startDemoGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value, type Sample } from '../support/prometheus.js';
import { sendMessageParams } from '../support/v1-message.js';

const V1_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const jsonRpcCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendMessageParams('hi') });
const restCall = JSON.stringify(sendMessageParams('hi'));

async function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers, body });
  await response.text();
  return response.status;
}

async function get(url: string): Promise<number> {
  const response = await fetch(url);
  await response.text();
  return response.status;
}

const refused = (samples: Sample[], surface: string): number =>
  value(samples, 'a2a_bridge_requests_total', { surface, outcome: 'error', error_code: 'http_401' });

/** The refusals counted per surface (the ones with any), `other` always. */
function refusedBySurface(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = { other: refused(samples, 'other') };
  for (const surface of ['jsonrpc', 'rest', 'v025', 'card']) {
    const count = refused(samples, surface);
    if (count > 0) counts[surface] = count;
  }
  return counts;
}

describe('refused calls count under their surface, the facade and the 1.0 surface both with credentials', () => {
  let gateway: TestGateway;
  let samples: Sample[];
  const statuses: number[] = [];
  beforeAll(async () => {
    gateway = await startDemoGateway({
      auth: { token: 'refused-token-zzzzzzzzzzzzzzzzzzzz' },
      bailian: { 'api-key': 'refused-key-yyyyyyyyyyyyyyyyyyyy' },
      metrics: { port: 0 },
    });
    // JSON-RPC on POST / without credentials, as a 1.0 client sends it.
    statuses.push(await post(`${gateway.url}/`, jsonRpcCall, V1_HEADERS));
    // HTTP+JSON without credentials, with a wrong token, and a task read without credentials.
    statuses.push(await post(`${gateway.url}/message:send`, restCall, V1_HEADERS));
    statuses.push(await post(`${gateway.url}/message:send`, restCall, { ...V1_HEADERS, authorization: 'Bearer wrong' }));
    statuses.push(await get(`${gateway.url}/tasks/some-task`));
    // Bailian's message/send on POST / without its key (no A2A-Version: a 0.x call).
    const bailian = v025Request('message/send', 'hi');
    statuses.push(await post(`${gateway.url}/`, bailian.body as string, bailian.headers as Record<string, string>));
    // The 1.0 card without credentials.
    statuses.push(await get(`${gateway.url}/.well-known/agent-card.json`));
    samples = await scrape(new URL(gateway.metricsUrl!).origin);
  });
  afterAll(() => gateway?.close());

  it('every call was refused 401', () => {
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
  });

  it('JSON-RPC under jsonrpc, HTTP+JSON under rest, the Bailian call under v025, the card under card; none under other', () => {
    expect(refusedBySurface(samples)).toEqual({ jsonrpc: 1, rest: 3, v025: 1, card: 1, other: 0 });
  });
});

describe('a 1.0 call refused by its own gate, the facade on POST / open to anyone', () => {
  let gateway: TestGateway;
  let samples: Sample[];
  let status: number;
  beforeAll(async () => {
    // The facade without keys admits every caller on POST /: the 1.0 dialect's own gate refuses the call.
    gateway = await startDemoGateway({ auth: { token: 'refused-token-zzzzzzzzzzzzzzzzzzzz' }, metrics: { port: 0 } });
    status = await post(`${gateway.url}/`, jsonRpcCall, V1_HEADERS);
    samples = await scrape(new URL(gateway.metricsUrl!).origin);
  });
  afterAll(() => gateway?.close());

  it('is refused 401 and counted under jsonrpc', () => {
    expect(status).toBe(401);
    expect(refusedBySurface(samples)).toEqual({ jsonrpc: 1, other: 0 });
  });
});

describe('lenient-version: a call on POST / without A2A-Version is no sign of 0.2.5', () => {
  let gateway: TestGateway;
  let samples: Sample[];
  const statuses: number[] = [];
  beforeAll(async () => {
    gateway = await startDemoGateway({
      auth: { token: 'refused-token-zzzzzzzzzzzzzzzzzzzz' },
      bailian: { 'api-key': 'refused-key-yyyyyyyyyyyyyyyyyyyy' },
      'lenient-version': true,
      metrics: { port: 0 },
    });
    // A 1.0 client that sends no A2A-Version (what lenient-version lets through) and no credentials.
    statuses.push(await post(`${gateway.url}/`, jsonRpcCall, { 'content-type': 'application/json' }));
    // Bailian's message/send with a wrong key: the facade's header tells whose call it is.
    const bailian = v025Request('message/send', 'hi');
    const headers = { ...(bailian.headers as Record<string, string>), 'x-api-key': 'wrong-key' };
    statuses.push(await post(`${gateway.url}/`, bailian.body as string, headers));
    // A keyless call that names a 0.x version is still one for the facade.
    statuses.push(await post(`${gateway.url}/`, bailian.body as string, { ...(bailian.headers as Record<string, string>), 'a2a-version': '0.3' }));
    samples = await scrape(new URL(gateway.metricsUrl!).origin);
  });
  afterAll(() => gateway?.close());

  it('the keyless call without a version under jsonrpc; one with a wrong X-API-KEY, or naming 0.3, under v025', () => {
    expect(statuses).toEqual([401, 401, 401]);
    expect(refusedBySurface(samples)).toEqual({ jsonrpc: 1, v025: 2, other: 0 });
  });
});

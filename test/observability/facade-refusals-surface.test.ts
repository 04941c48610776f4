/**
 * A request on the facade's path refused before a dialect took it (a body over `max-body-bytes`, one that is
 * not JSON, a method no version serves) is the facade's: logged and counted under `surface="v025"`
 * (deploy/README.md, Metrics), not under the 1.0 surface, which is not mounted there. The method a caller
 * made up is logged as posted, cut and on one line; the metrics count it as `other`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const BAILIAN_KEY = 'bailian-key-for-refusals-0123';
let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({});
  gateway = await startTestGateway({
    upstream: { url: fake.url },
    bailian: { 'base-path': '/bailian', 'api-keys': [{ name: 'bailian-prod', key: BAILIAN_KEY }] },
    'max-body-bytes': 100_000,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

const post = (path: string, body: string, headers: Record<string, string> = { 'x-api-key': BAILIAN_KEY }): Promise<Response> =>
  fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
/** The request line of `response`, by the request id the gateway echoes. */
const lineOf = (response: Response) =>
  gateway.requestLog().find((line) => (line as unknown as Record<string, unknown>).reqId === response.headers.get('x-request-id'));
const scrape = async (): Promise<string> => (await fetch(`${gateway.url}/metrics`)).text();
const series = (code: number, method = '') =>
  `a2a_bridge_requests_total{surface="v025",method="${method}",outcome="error",error_code="${code}",client="bailian-prod"}`;

it('a body over max-body-bytes and one that is not JSON, posted to the facade: surface v025 in the log and the metrics', async () => {
  const oversized = await post('/bailian', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { text: 'x'.repeat(200_000) } }));
  expect(((await oversized.json()) as { error: { code: number } }).error.code).toBe(-32600);
  expect(lineOf(oversized)).toMatchObject({ surface: 'v025', errorCode: -32600 });
  const garbled = await post('/bailian/stream', '{"jsonrpc":');
  // At /stream, as the one SSE frame a 0.2.5 streaming client reads.
  expect(JSON.parse((await garbled.text()).replace(/^data: /, '')).error.code).toBe(-32700);
  expect(lineOf(garbled)).toMatchObject({ surface: 'v025', errorCode: -32700 });
  const text = await scrape();
  expect(text).toContain(series(-32600));
  expect(text).toContain(series(-32700));
});

it('a made-up method posted to the facade: surface v025, logged as posted but cut and on one line, counted as other', async () => {
  const made = `tasks/\u0000evil\nline\u202e${'m'.repeat(300)}`;
  const answer = await post('/bailian', JSON.stringify({ jsonrpc: '2.0', id: 2, method: made }));
  expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(-32601);
  const line = lineOf(answer);
  expect(line).toMatchObject({ surface: 'v025', errorCode: -32601 });
  expect(line?.method).toBe(`tasks/?evil?line?${'m'.repeat(100 - 17)}`);
  expect(await scrape()).toContain(series(-32601, 'other'));
});

it('the 1.0 endpoint at POST / keeps its own surface for the same refusals', async () => {
  const answer = await post('/', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'no/such' }), {});
  expect(lineOf(answer)).toMatchObject({ surface: 'jsonrpc', errorCode: -32601, method: 'no/such' });
});

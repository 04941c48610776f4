/**
 * Bad input found by probing the gateway from outside that the other hardening files do not cover.
 *
 * A caller that hangs up halfway through sending its body is no failure of the gateway's: nobody is there to
 * read an answer, and the operator must not read one as the gateway breaking. Its request line says
 * `ended: caller_left` (status 499, at info, no error code), and a2a_bridge_requests_total counts it
 * `outcome="caller_left"`, as for a caller that leaves mid-call (docs/surfaces.md, A caller that stops
 * waiting). Before, the HTTP+JSON binding logged such a request as a failure of its own (HTTP 500, -32603
 * "Internal error", at error: the error-ratio alert pages on it), and the JSON-RPC endpoints as the caller's
 * malformed JSON (-32700).
 *
 * A numeric id past a double's range (1e400) is a JSON number, so a JSON-RPC id: it is answered as written, like
 * every id JSON.parse does not hold as written (docs/conformance.md, A response's id is its request's). Before, it
 * was refused with -32600 "'id' must be a string, a number or null" and id null, while 1e-400 was served.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogLine, TestGateway } from '../../support/gateway.js';
import { addedBy } from '../../support/prometheus.js';
import { waitUntil } from '../../support/wait-until.js';
import { envelope, startHardenedGateway, v025Message, v1Message } from './inputs.js';
import { V025_HEADERS, V1_HEADERS, exchange, expectHealthy } from './support.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startHardenedGateway();
});
afterAll(async () => {
  await gateway?.close();
});

/** Sends the request line, the headers (`declared` as the body's length) and the first half of `body`, then hangs up. */
async function hangUpMidBody(path: string, headers: Record<string, string>, body: string, declared = Buffer.byteLength(body)): Promise<void> {
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const head = Object.entries({ host: 'gateway', 'content-type': 'application/json', ...headers, 'content-length': String(declared) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${body.slice(0, body.length / 2)}`);
  // The gateway is reading the body by then: the request was admitted and its handler waits for the rest.
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.destroy();
}

const REQUESTS = 'a2a_bridge_requests_total';

/** Past the default max-body-bytes: refused, and its rest read off before the answer, while the caller hangs up. */
const OVERSIZED = 64 * 1024 * 1024;

const CALLS: Array<{ name: string; path: string; headers: Record<string, string>; body: unknown; surface: string; declared?: number }> = [
  { name: '1.0 JSON-RPC SendMessage', path: '/', headers: V1_HEADERS, body: envelope('SendMessage', v1Message), surface: 'jsonrpc' },
  { name: 'facade message/send', path: '/', headers: V025_HEADERS, body: envelope('message/send', v025Message), surface: 'v025' },
  { name: 'facade message/stream', path: '/stream', headers: V025_HEADERS, body: envelope('message/stream', v025Message), surface: 'v025' },
  { name: 'HTTP+JSON message:send', path: '/message:send', headers: V1_HEADERS, body: v1Message, surface: 'rest' },
  { name: 'HTTP+JSON message:stream', path: '/message:stream', headers: V1_HEADERS, body: v1Message, surface: 'rest' },
  { name: 'HTTP+JSON :cancel', path: '/tasks/task-1:cancel', headers: V1_HEADERS, body: { metadata: { why: 'x'.repeat(200) } }, surface: 'rest' },
  {
    name: '1.0 JSON-RPC, over max-body-bytes',
    path: '/',
    headers: V1_HEADERS,
    body: envelope('SendMessage', v1Message),
    surface: 'jsonrpc',
    declared: OVERSIZED,
  },
  {
    name: 'HTTP+JSON message:send, over max-body-bytes',
    path: '/message:send',
    headers: V1_HEADERS,
    body: v1Message,
    surface: 'rest',
    declared: OVERSIZED,
  },
];

describe('a caller that hangs up halfway through its body', () => {
  it.each(CALLS)('$name: logged and counted as the caller leaving, not as an error', async ({ path, headers, body, surface, declared }) => {
    const logged = gateway.requestLog().length;
    let line: RequestLogLine | undefined;
    const added = await addedBy(gateway.url, REQUESTS, async () => {
      await hangUpMidBody(path, headers, JSON.stringify(body), declared);
      const lineOf = () =>
        gateway
          .requestLog()
          .slice(logged)
          .find((candidate) => candidate.path === path);
      await waitUntil(async () => lineOf() !== undefined);
      line = lineOf();
    });
    expect(line).toMatchObject({ status: 499, ended: 'caller_left', surface });
    expect(line).not.toHaveProperty('errorCode');
    expect(gateway.log().filter((entry) => entry.msg === 'request' && entry.level >= 40)).toEqual([]);
    expect(added({ surface, outcome: 'caller_left' })).toBe(1);
    expect(added({ surface, outcome: 'error' })).toBe(0);
    await expectHealthy(gateway.url);
  });
});

describe('an id past the range of a double', () => {
  const IDS = ['1e400', '-1e400', '123456789012345678901234567890e300'];
  /** A request whose top-level id is written `id`, verbatim. */
  const withId = (id: string, method: string, params: unknown): string =>
    JSON.stringify({ jsonrpc: '2.0', id: 0, method, params }).replace('"id":0', `"id":${id}`);
  const opening = (id: string): string => `{"jsonrpc":"2.0","id":${id},`;

  it.each(IDS)('%s: served on every JSON-RPC surface, every answer carrying it as written', async (id) => {
    const v1 = await exchange(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1_HEADERS },
      body: withId(id, 'GetTask', { id: 'no-such-task' }),
    });
    expect(v1.text.startsWith(opening(id)), v1.text.slice(0, 200)).toBe(true);
    expect((v1.json as { error: { code: number } }).error.code).toBe(-32001);

    const facade = await exchange(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V025_HEADERS },
      body: withId(id, 'message/send', v025Message),
    });
    expect(facade.text.startsWith(opening(id)), facade.text.slice(0, 200)).toBe(true);
    expect((facade.json as { result: { kind: string } }).result.kind).toBe('task');

    const streamed = await exchange(`${gateway.url}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V025_HEADERS },
      body: withId(id, 'message/stream', v025Message),
    });
    expect(streamed.frames?.length).toBeGreaterThan(0);
    for (const frame of streamed.frames ?? []) expect(frame.data.startsWith(opening(id)), frame.data.slice(0, 200)).toBe(true);
  });
});

/**
 * A relayed answer to a unary call over 64 KiB goes to its caller unchecked, as it comes (docs/conformance.md). When
 * its body breaks mid-way (the agent's connection reset) or the agent goes quiet in the middle of it past
 * `upstream.stream-idle-timeout-ms`, its caller's connection is cut (nothing valid can follow what was sent), and the
 * operator reads one line at warn in the gateway's log, scrubbed, with the request's `reqId`, `method` and why, and no
 * stack, at the default level (info) as at `log-level: warn` (before, at warn the line had no `reqId`: the request's
 * handlers were given the root logger). Before, a break was in no log line, and either was printed by the HTTP server,
 * stack and all, outside the log (and its words were appended to the caller's body as text). Such a call is counted
 * as failed by the cut's code, in a2a_bridge_requests_total and a2a_bridge_upstream_requests_total (before, `ok`, as its
 * headers went out). The agent is hand-written (fault injection).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger, type LogLevel } from '../../src/log.js';
import { startFakeV025, type FakeCall, type FakeV025 } from '../support/fake-v025.js';
import { scrape, value } from '../support/prometheus.js';
import { waitUntil } from '../support/wait-until.js';

const RELAYED = { profile: 'a2a-0.2.5' };
const WARN = 40;
const IDLE_MS = 300;
/** The task whose large answer the agent sends whole. */
const WHOLE = 't-whole';
/** Well past the 64 KiB the relay reads to judge an answer: the rest goes through unchecked. */
const HISTORY = Array.from({ length: 2_000 }, (_, index) => ({
  kind: 'message',
  role: 'agent',
  messageId: `m-${index}`,
  parts: [{ kind: 'text', text: 'x'.repeat(60) }],
}));

/** The head of a large task answer (its history), without its end (or, `chars` Infinity, the whole answer). */
function largeHead(call: FakeCall, chars = 100 * 1024): string {
  const whole = JSON.stringify({
    jsonrpc: '2.0',
    id: call.id,
    result: { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'completed' }, history: HISTORY },
  });
  return whole.slice(0, chars);
}

type LogLine = { level: number; msg: string } & Record<string, unknown>;

/** The real gateway logging at `level` (the test helper's logs at info), every line it writes kept. */
async function gatewayLoggingAt(level: LogLevel, overrides: Record<string, unknown>) {
  const lines: LogLine[] = [];
  const destination = {
    write: (chunk: string) =>
      void lines.push(
        ...chunk
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as LogLine),
      ),
  };
  const logger = createLogger(level, destination);
  const running = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', ...overrides }), logger);
  return { url: running.url, log: () => [...lines], logger, close: running.close };
}

/** What the caller of `method` reads: the body's length, or that it broke. */
async function read(url: string, method: string, reqId: string, taskId = 't-1'): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'large', method, params: { id: taskId } });
  const answer = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': reqId }, body });
  expect(answer.status).toBe(200);
  return answer.text().then(
    (text) => `ended after ${text.length} chars: ${text.slice(-60)}`,
    (error: unknown) => `broke: ${String(error)}`,
  );
}

describe.each(['info', 'warn'] as const)('a relayed answer over 64 KiB that breaks (log-level %s)', (level) => {
  let agent: FakeV025;
  let gateway: Awaited<ReturnType<typeof gatewayLoggingAt>>;
  const printed: unknown[][] = [];
  beforeAll(async () => {
    agent = await startFakeV025({
      rpc: {
        // The agent's connection reset once most of the answer is out (the path in its words must not reach the log).
        'tasks/get': (call, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          // The whole answer, which ends well.
          if ((call.params as { id?: unknown }).id === WHOLE) return void res.end(largeHead(call, Infinity));
          res.write(largeHead(call), () => setTimeout(() => res.socket?.destroy(new Error('read /home/alice/.agent failed')), 100));
        },
        // The agent goes quiet in the middle of the answer.
        'tasks/cancel': (call, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(largeHead(call));
        },
      },
    });
    gateway = await gatewayLoggingAt(level, { bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url, 'stream-idle-timeout-ms': IDLE_MS } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    printed.length = 0;
  });

  /** Whatever the process prints outside the gateway's log meanwhile. */
  function watchConsole(): void {
    for (const name of ['error', 'info', 'warn'] as const)
      vi.spyOn(console, name).mockImplementation((...args: unknown[]) => void printed.push(args));
  }

  it.each([
    ['tasks/get', 'broke', 'other side closed', 'UND_ERR_SOCKET'],
    ['tasks/cancel', 'went quiet', `nothing from the agent for ${IDLE_MS} ms`, undefined],
  ])(
    '%s (the agent %s mid-body): its caller cut; one warn line with its reqId, no stack, nothing printed; counted -32603',
    async (method, _how, cause, causeCode) => {
      watchConsole();
      const reqId = `large-${level}-${method.replace('/', '-')}`;
      const before = await scrape(gateway.url);
      const read_ = await read(gateway.url, method, reqId);
      // Not a clean end: what was sent is not JSON, and nothing of the transport's words is appended to it.
      expect(read_).toMatch(/^broke: /);
      // The request's lines, and its cut line whether it carries the request's id or not.
      const ofTheCall = (line: LogLine) => line.reqId === reqId || (line.msg === 'relayed answer cut' && line.method === method);
      const lines = () => gateway.log().filter((line) => ofTheCall(line) && line.msg !== 'request');
      await waitUntil(async () => lines().length > 0);
      // A late second line would show here.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(lines()).toEqual([
        expect.objectContaining({
          level: WARN,
          msg: 'relayed answer cut',
          reqId,
          surface: 'v025',
          method,
          errorCode: -32603,
          cause: expect.stringContaining(cause),
          ...(causeCode ? { causeCode } : {}),
        }),
      ]);
      expect(JSON.stringify(lines())).not.toMatch(/alice|"stack"|"err"/);
      expect(printed).toEqual([]);
      const counted = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
      let after = await scrape(gateway.url);
      await waitUntil(async () => {
        after = await scrape(gateway.url);
        return counted('a2a_bridge_requests_total', { method }) > 0;
      });
      expect(counted('a2a_bridge_requests_total', { surface: 'v025', method, outcome: 'error', error_code: '-32603' })).toBe(1);
      expect(counted('a2a_bridge_requests_total', { method, outcome: 'ok' })).toBe(0);
      expect(counted('a2a_bridge_upstream_requests_total', { method, outcome: 'error' })).toBe(1);
      expect(counted('a2a_bridge_upstream_requests_total', { method, outcome: 'ok' })).toBe(0);
    },
  );

  it('one that ends well is read whole and counted ok once it ended; at warn, no line and no logger made for it', async () => {
    const method = 'tasks/get';
    const reqId = `large-${level}-whole`;
    const before = await scrape(gateway.url);
    const children = vi.spyOn(gateway.logger, 'child');
    expect(await read(gateway.url, method, reqId, WHOLE)).toMatch(/^ended after \d+ chars: .*\}\}$/);
    const counted = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    let after = await scrape(gateway.url);
    await waitUntil(async () => {
      after = await scrape(gateway.url);
      return counted('a2a_bridge_requests_total', { method }) > 0;
    });
    expect(counted('a2a_bridge_requests_total', { surface: 'v025', method, outcome: 'ok' })).toBe(1);
    expect(counted('a2a_bridge_upstream_requests_total', { method, outcome: 'ok' })).toBe(1);
    expect(counted('a2a_bridge_upstream_requests_total', { method, outcome: 'error' })).toBe(0);
    expect(gateway.log().filter((line) => line.reqId === reqId && line.level >= WARN)).toEqual([]);
    // At warn, a request that writes nothing has no logger of its own made (the hot path): at info, its one.
    const madeFor = children.mock.calls.filter(([bindings]) => (bindings as { reqId?: string }).reqId === reqId);
    expect(madeFor.length).toBe(level === 'info' ? 1 : 0);
  });
});

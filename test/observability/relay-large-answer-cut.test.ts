/**
 * A relayed answer to a unary call over 64 KiB goes to its caller unchecked, as it comes (docs/conformance.md). When
 * its body breaks mid-way (the agent's connection reset) or the agent goes quiet in the middle of it past
 * `upstream.stream-idle-timeout-ms`, its caller's connection is cut (nothing valid can follow what was sent), and the
 * operator reads one line at warn in the gateway's log, scrubbed, with the request's `reqId`, `method` and why, and no
 * stack. Before, a break was in no log line, and either was printed by the HTTP server, stack and all, outside the log
 * (and its words were appended to the caller's body as text). The agent is hand-written (fault injection).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeV025, type FakeCall, type FakeV025 } from '../support/fake-v025.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/wait-until.js';

const RELAYED = { profile: 'a2a-0.2.5' };
const WARN = 40;
const IDLE_MS = 300;
/** Well past the 64 KiB the relay reads to judge an answer: the rest goes through unchecked. */
const HISTORY = Array.from({ length: 2_000 }, (_, index) => ({
  kind: 'message',
  role: 'agent',
  messageId: `m-${index}`,
  parts: [{ kind: 'text', text: 'x'.repeat(60) }],
}));

/** The head of a large task answer (its history), without its end. */
function largeHead(call: FakeCall): string {
  const whole = JSON.stringify({
    jsonrpc: '2.0',
    id: call.id,
    result: { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'completed' }, history: HISTORY },
  });
  return whole.slice(0, 100 * 1024);
}

/** What the caller of `method` reads: the body's length, or that it broke. */
async function read(url: string, method: string, reqId: string): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'large', method, params: { id: 't-1' } });
  const answer = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': reqId }, body });
  expect(answer.status).toBe(200);
  return answer.text().then(
    (text) => `ended after ${text.length} chars: ${text.slice(-60)}`,
    (error: unknown) => `broke: ${String(error)}`,
  );
}

describe('a relayed answer over 64 KiB that breaks', () => {
  let agent: FakeV025;
  let gateway: TestGateway;
  const printed: unknown[][] = [];
  beforeAll(async () => {
    agent = await startFakeV025({
      rpc: {
        // The agent's connection reset once most of the answer is out (the path in its words must not reach the log).
        'tasks/get': (call, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(largeHead(call), () => setTimeout(() => res.socket?.destroy(new Error('read /home/alice/.agent failed')), 100));
        },
        // The agent goes quiet in the middle of the answer.
        'tasks/cancel': (call, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(largeHead(call));
        },
      },
    });
    gateway = await startTestGateway({ bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url, 'stream-idle-timeout-ms': IDLE_MS } });
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
  ])('%s (the agent %s mid-body): its caller cut; one warn line, no stack, nothing printed', async (method, _how, cause, causeCode) => {
    watchConsole();
    const reqId = `large-${method.replace('/', '-')}`;
    const read_ = await read(gateway.url, method, reqId);
    // Not a clean end: what was sent is not JSON, and nothing of the transport's words is appended to it.
    expect(read_).toMatch(/^broke: /);
    const lines = () => gateway.log().filter((line) => line.reqId === reqId && line.msg !== 'request');
    await waitUntil(async () => lines().length > 0);
    // A late second line would show here.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines()).toEqual([
      expect.objectContaining({
        level: WARN,
        msg: 'relayed answer cut',
        surface: 'v025',
        method,
        errorCode: -32603,
        cause: expect.stringContaining(cause),
        ...(causeCode ? { causeCode } : {}),
      }),
    ]);
    expect(JSON.stringify(lines())).not.toMatch(/alice|"stack"|"err"/);
    expect(printed).toEqual([]);
  });
});

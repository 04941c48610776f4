/**
 * Memory after stream churn: rounds of 150 streams (1.0 JSON-RPC, 1.0 HTTP+JSON and 0.2.5 mixed), each
 * aborted by its client right after the first event, against the gateway in a child process
 * (fixtures/gateway-process.ts, task stores capped at 500 so what they keep is at its working size
 * after the warm-up). After full GCs, the live heap (per V8 space), `external`, array buffers, RSS
 * and the process's active handles (sockets, timers) must come back to the warm-up baseline within
 * small bounds and stop growing: a leak of per-stream state (a listener, a timer, an undici body, an
 * SSE controller) shows in one of them.
 *
 * What was found (docs/security.md, "Memory"): the growth seen under churn is the task stores filling
 * up to `tasks.max-tasks` (and the demo agent's own store), plus V8 keeping its grown heap; with
 * the stores capped, heap, external memory, buffers and handles stay flat.
 */
import { request } from 'undici';
import { expect, it } from 'vitest';
import { gatewayChildSuite, type Memory } from './fixtures/gateway-child.js';

const STREAMS_PER_ROUND = 150;
const WARM_UP_ROUNDS = 3;
const ROUNDS = 6;
const MiB = 1024 * 1024;
const HEAP_BOUND = 4 * MiB;
const OLD_SPACE_BOUND = 3 * MiB;
const EXTERNAL_BOUND = 2 * MiB;
const RSS_BOUND = 24 * MiB;

/** How long either pool (this test's client, the gateway's upstream) keeps an idle connection. */
const KEEP_ALIVE_MS = 500;
const gateway = gatewayChildSuite(STREAMS_PER_ROUND, KEEP_ALIVE_MS);
const measure = () => gateway.measure();

let sequence = 0;

/** One stream, aborted by the client as soon as its first event is in. Resolves with whether an event came. */
async function abortedStream(flavour: number): Promise<boolean> {
  const n = ++sequence;
  const text = `churn turn ${n}: a reply long enough to still be streaming when the client leaves`;
  let url = `${gateway.url}/`;
  let headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  let body: string;
  const params = { message: { role: 'ROLE_USER', messageId: `m-churn-${n}`, parts: [{ text }] } };
  if (flavour === 0) body = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'SendStreamingMessage', params });
  else if (flavour === 1) {
    url = `${gateway.url}/message:stream`;
    body = JSON.stringify(params);
  } else {
    url = `${gateway.url}/stream`;
    headers = { 'content-type': 'application/json' };
    body = JSON.stringify({
      jsonrpc: '2.0',
      id: n,
      method: 'message/stream',
      params: { message: { kind: 'message', role: 'user', messageId: `m-churn-${n}`, parts: [{ kind: 'text', text }] } },
    });
  }
  const controller = new AbortController();
  const response = await request(url, {
    method: 'POST',
    headers,
    body,
    dispatcher: gateway.dispatcher,
    signal: controller.signal,
    headersTimeout: 10_000,
  });
  let sawEvent = false;
  try {
    for await (const chunk of response.body) {
      if (String(chunk).includes('data:')) {
        sawEvent = true;
        break;
      }
    }
  } catch {
    // the abort below may already have ended it
  }
  controller.abort();
  response.body.destroy();
  return sawEvent;
}

async function round(): Promise<void> {
  const results = await Promise.all(Array.from({ length: STREAMS_PER_ROUND }, (_, i) => abortedStream(i % 3)));
  expect(results.every(Boolean), 'every stream delivered its first event before the abort').toBe(true);
  // Let the gateway see the disconnects and end the upstream calls.
  await new Promise((resolve) => setTimeout(resolve, 300));
}

const handles = (memory: Memory) => (memory.resources.TCPSocketWrap ?? 0) + (memory.resources.Timeout ?? 0);

/**
 * Past the keep-alive of both pools (this test's client and the gateway's upstream pool, KEEP_ALIVE_MS each):
 * their idle sockets are closed, so a socket still open is one a stream left behind. Counted earlier,
 * the pooled sockets that happen to be active at that instant (anything from a few to 300) made the
 * handle bound depend on timing instead of on leaks.
 */
const afterKeepAlive = async (): Promise<Memory> => {
  await new Promise((resolve) => setTimeout(resolve, KEEP_ALIVE_MS + 1_000));
  return measure();
};

it('live heap, external memory, RSS and handles come back to the baseline after rounds of aborted streams', async () => {
  for (let i = 0; i < WARM_UP_ROUNDS; i++) await round();
  const baseline = await afterKeepAlive();
  expect(baseline.gc, 'the child runs with --expose-gc').toBe(true);
  const after: Memory[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await round();
    after.push(await measure());
  }
  // Measured as the baseline was, once the pools let their idle connections go: 300 ms after a round,
  // the last aborted calls of a slow host may still be ending, which is not what this test looks for.
  const settled = await afterKeepAlive();
  const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
  const report = `baseline heap ${mib(baseline.heapUsed)} rss ${mib(baseline.rss)}; after each round: ${after
    .map((m) => `heap ${mib(m.heapUsed)} rss ${mib(m.rss)}`)
    .join(' | ')}; settled: heap ${mib(settled.heapUsed)} rss ${mib(settled.rss)}`;
  expect(settled.heapUsed - baseline.heapUsed, report).toBeLessThan(HEAP_BOUND);
  expect((settled.spaces.old_space ?? 0) - (baseline.spaces.old_space ?? 0), report).toBeLessThan(OLD_SPACE_BOUND);
  expect(settled.external - baseline.external, report).toBeLessThan(EXTERNAL_BOUND);
  expect(settled.arrayBuffers - baseline.arrayBuffers, report).toBeLessThan(EXTERNAL_BOUND);
  expect(settled.rss - baseline.rss, report).toBeLessThan(RSS_BOUND);
  // Levelled off: the second half of the rounds adds (almost) nothing.
  const middle = after[Math.floor(ROUNDS / 2) - 1]!;
  expect(settled.heapUsed - middle.heapUsed, report).toBeLessThan(HEAP_BOUND / 2);
  // No socket or timer outlives its stream, once the pools have let their idle connections go.
  expect(handles(settled) - handles(baseline), JSON.stringify({ baseline: baseline.resources, settled: settled.resources })).toBeLessThan(20);
}, 90_000);

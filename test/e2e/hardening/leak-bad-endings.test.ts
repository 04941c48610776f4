/**
 * What the gateway keeps per call comes back to where it began when calls end badly. The real gateway in
 * front of the fake iac-code runs rounds of calls that end every bad way a caller or an agent can end them:
 * the caller hanging up before the first event and mid-stream (1.0 JSON-RPC, HTTP+JSON, the 0.2.5 facade,
 * gRPC), the agent resetting or hanging mid-stream until the gateway's own bounds end it, a hang before
 * headers, CancelTask during a stream, a resubscription dropped, a Bailian turn hung up then continued while
 * a later message waits its turn, a push config on a task that fails, a gRPC deadline passing, a client
 * past its cap on turns in flight. Once all is quiet: no stream counted open on /metrics, every upstream
 * exchange over, no timer or socket beyond those the idle gateway had, and the capped client gets its
 * whole cap again (a slot still counted would refuse one of its turns).
 *
 * What was checked beyond this guard (in-process Map/Set sizes diffed through the inspector, listeners on
 * long-lived emitters and signals, with a2a-js 1.x and 0.2.5 agents too, Redis-backed lanes and slots, URL
 * image fetch slots): nothing kept per call outlived its call; what grows is what is kept per task and
 * conversation by design (task stores, cut-turn notes, push configs), each bounded.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { grpcTransport, wire } from '../grpc/grpc-client.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { scrape, value } from '../../support/prometheus.js';
import { sendRequest } from '../../support/sdk-v1-client.js';
import { API_KEY, TOKEN, V025_HEADERS, V1_HEADERS } from './support.js';

const CAP = 4;
const ROUNDS = 6;
/** Past the keep-alive of the gateway's upstream pool and of this file's own fetch (4 s each): idle sockets are gone. */
const QUIET_WITHIN_MS = 8_000;

let fake: FakeIacCode;
let gateway: TestGateway;
let webhook: ReturnType<typeof createServer>;
let webhookUrl: string;
let sequence = 0;

const v1 = { 'content-type': 'application/json', ...V1_HEADERS };
const v025 = { 'content-type': 'application/json', ...V025_HEADERS };
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  webhook = createServer((request, response) => void request.resume().on('end', () => response.writeHead(204).end()));
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
  fake = await startFakeIacCode();
  gateway = await startTestGateway({
    auth: { token: TOKEN },
    bailian: { 'api-key': API_KEY },
    'keepalive-ms': 100,
    grpc: { port: 0 },
    'push-notifications': true,
    'push-allow-private': true,
    limits: { 'turns-in-flight-per-client': CAP },
    upstream: {
      url: fake.url,
      'headers-timeout-ms': 300,
      'request-timeout-ms': 1_000,
      'first-event-timeout-ms': 800,
      'stream-idle-timeout-ms': 800,
      'connect-timeout-ms': 500,
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  webhook?.closeAllConnections();
  await new Promise((resolve) => webhook?.close(resolve));
});

const v1Call = (method: string, text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: ++sequence,
    method,
    params: { message: { role: 'ROLE_USER', messageId: `m-${sequence}`, parts: [{ text }] }, ...extra },
  });
const v025Call = (method: string, text: string, contextId?: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: ++sequence,
    method,
    params: {
      message: { kind: 'message', role: 'user', messageId: `m-${sequence}`, parts: [{ kind: 'text', text }], ...(contextId ? { contextId } : {}) },
    },
  });
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: ++sequence, method, params });

/**
 * POSTs and reads the answer until `frames` SSE data frames are in (all of it by default), or until
 * `hangUpAfterMs`; then hangs up. Runs `withTask` on the task id of the first frames, if given.
 */
async function call(
  path: string,
  headers: Record<string, string>,
  body: string,
  { frames = Infinity, hangUpAfterMs, withTask }: { frames?: number; hangUpAfterMs?: number; withTask?: (id: string) => Promise<unknown> } = {},
): Promise<string> {
  const caller = new AbortController();
  const timer = hangUpAfterMs === undefined ? undefined : setTimeout(() => caller.abort(), hangUpAfterMs);
  let text = '';
  try {
    const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers, body, signal: caller.signal });
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      const taskId = /"taskId":"([^"]+)"/.exec(text)?.[1];
      const then = taskId ? withTask : undefined;
      withTask = taskId ? undefined : withTask;
      if (then && taskId) await then(taskId);
      if ((text.match(/(^|\n)data:/g) ?? []).length >= frames) break;
    }
  } catch {
    // hung up: that is the point
  } finally {
    clearTimeout(timer);
    caller.abort();
  }
  return text;
}

let deadlineTransport: Awaited<ReturnType<typeof grpcTransport>>;
let streamTransport: Awaited<ReturnType<typeof grpcTransport>>;

async function grpcStreamHungUp(text: string): Promise<void> {
  const caller = new AbortController();
  const iterator = streamTransport.sendMessageStream(sendRequest(text), { ...wire(auth), signal: caller.signal })[Symbol.asyncIterator]();
  await iterator.next().catch(() => undefined);
  caller.abort();
  await iterator.return?.(undefined).catch(() => undefined);
}

/** One call of every bad ending, at once. */
const badEndings = (): Array<Promise<unknown>> => {
  const conversation = `leak-conversation-${++sequence}`;
  return [
    call('/', v1, v1Call('SendStreamingMessage', 'a [fault:quiet after=2 ms=600]'), { frames: 1 }),
    call('/', v1, v1Call('SendStreamingMessage', 'b [fault:hang-before-headers]'), { hangUpAfterMs: 50 }),
    call('/', v1, v1Call('SendStreamingMessage', 'c [fault:kill-mid-stream after=2]')),
    call('/', v1, v1Call('SendStreamingMessage', 'd [fault:hang-mid-stream after=2]')),
    call('/', v1, v1Call('SendMessage', 'e [fault:hang-before-headers]')),
    call(
      '/message:stream',
      v1,
      JSON.stringify({ message: { role: 'ROLE_USER', messageId: `m-${++sequence}`, parts: [{ text: 'f [fault:error-event after=2]' }] } }),
    ),
    call('/', v1, v1Call('SendStreamingMessage', 'g [fault:quiet after=2 ms=600]'), {
      withTask: async (id) => {
        await call('/', v1, rpc('SubscribeToTask', { id }), { frames: 1 });
        await call('/', v1, rpc('CancelTask', { id }));
      },
    }),
    call(
      '/',
      v1,
      v1Call('SendStreamingMessage', 'h [fault:kill-mid-stream after=2]', { configuration: { taskPushNotificationConfig: { url: webhookUrl } } }),
    ),
    call('/stream', v025, v025Call('message/stream', 'i [fault:quiet after=2 ms=600]'), { frames: 1 }),
    call('/stream', v025, v025Call('message/stream', 'j [fault:kill-mid-stream after=2]')),
    call('/', v025, v025Call('message/send', 'k [fault:hang-before-headers]'), { hangUpAfterMs: 100 }),
    (async () => {
      await call('/stream', v025, v025Call('message/stream', 'l [fault:quiet after=2 ms=600]', conversation), { frames: 2 });
      await Promise.all([
        call('/stream', v025, v025Call('message/stream', 'continued', conversation)),
        call('/', v025, v025Call('message/send', 'waiting its turn', conversation), { hangUpAfterMs: 200 }),
      ]);
    })(),
    deadlineTransport.sendMessage(sendRequest('m [fault:hang-before-headers]'), wire(auth)).catch(() => undefined),
    grpcStreamHungUp('n [fault:quiet after=2 ms=600]'),
    ...Array.from({ length: CAP + 2 }, () =>
      call('/', v1, v1Call('SendStreamingMessage', 'o [fault:hang-mid-stream after=1]'), { frames: 1, hangUpAfterMs: 300 }),
    ),
  ];
};

const count = (kind: string): number => process.getActiveResourcesInfo().filter((resource) => resource === kind).length;
const openStreams = async (): Promise<number> => value(await scrape(gateway.url), 'a2a_bridge_open_streams');

it('after a hundred calls and more that end badly, no stream, upstream exchange, timer, socket or turn slot is still held', async () => {
  const idle = { timers: count('Timeout'), sockets: count('TCPSocketWrap') };
  deadlineTransport = await grpcTransport(gateway, auth, {
    get deadline() {
      return Date.now() + 200;
    },
  });
  streamTransport = await grpcTransport(gateway, auth);
  let calls = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const ending = badEndings();
    calls += ending.length;
    await Promise.all(ending);
  }
  expect(calls).toBeGreaterThanOrEqual(100);

  await expect.poll(openStreams, { timeout: QUIET_WITHIN_MS, message: 'streams counted open on /metrics' }).toBe(0);
  const unfinished = async () => {
    const settled = await Promise.all(fake.requests.map((request) => Promise.race([request.closed.then(() => true), sleep(10).then(() => false)])));
    return settled.filter((done) => !done).length;
  };
  await expect.poll(unfinished, { timeout: QUIET_WITHIN_MS, message: 'upstream exchanges still open at the agent' }).toBe(0);
  await expect
    .poll(() => count('Timeout'), { timeout: QUIET_WITHIN_MS, message: 'timers beyond those of the idle gateway' })
    .toBeLessThanOrEqual(idle.timers);
  // The two gRPC channels this test keeps open: each connection's client end and server end.
  const grpcSockets = 4;
  await expect
    .poll(() => count('TCPSocketWrap'), { timeout: QUIET_WITHIN_MS, message: 'sockets beyond those of the idle gateway and the gRPC channels' })
    .toBeLessThanOrEqual(idle.sockets + grpcSockets);

  // The capped client gets its whole cap: every one of CAP turns at once starts (none is refused).
  const starts = await Promise.all(
    Array.from({ length: CAP }, () =>
      call('/', v1, v1Call('SendStreamingMessage', 'p [fault:hang-mid-stream after=1]'), { frames: 1, hangUpAfterMs: 2_000 }),
    ),
  );
  expect(starts.map((text) => (text.includes('"error"') ? text : 'started'))).toEqual(Array(CAP).fill('started'));
}, 30_000);

/**
 * An upstream that takes the connection and never answers (a hung iac-code sidecar) does not hold the
 * start: the gateway listens within seconds, /health answers, /ready stays 503 while detection and the
 * first card fetch go on in the background, and calls meanwhile get their protocol's error once the
 * upstream's own bound (`headers-timeout-ms`) is over, as for a refused port.
 */
import { describe, it, type TestContext } from 'vitest';
import { ErrorCode } from '../../../src/model/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startHungServer, type HungServer } from '../../support/hung-server.js';

/** `promise`'s value, or undefined when it has not settled within `ms` (it may settle later). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a test opened, closed when it finishes (last opened, first closed). */
function openedBy(onTestFinished: TestContext['onTestFinished']): Array<{ close(): Promise<void> }> {
  const open: Array<{ close(): Promise<void> }> = [];
  onTestFinished(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });
  return open;
}

/** The gateway in front of `hung`, or undefined when it was not listening within `ms`. */
async function startInFrontOf(
  open: Array<{ close(): Promise<void> }>,
  hung: HungServer,
  upstream: Record<string, unknown>,
  ms: number,
): Promise<TestGateway | undefined> {
  const starting = startTestGateway({ upstream: { url: hung.url, ...upstream } });
  // Closed after the test, also when it ended late (the test gave up on it: the code before the fix).
  starting.then(
    (gateway) => open.push(gateway),
    () => undefined,
  );
  return within(starting, ms);
}

// Side by side: each test has a hung server and a gateway of its own, and both mostly wait (the start's waits for
// the detection and the first card fetch, src/upstream/connect.ts and src/core/card-refresher.ts, 2 s each).
describe.concurrent('an upstream that takes the connection and never answers', () => {
  it('the gateway listens within seconds: /health 200, /ready 503 (not after headers-timeout-ms, twice)', async ({ expect, onTestFinished }) => {
    const open = openedBy(onTestFinished);
    const hung = await startHungServer();
    open.push(hung);
    const startedAt = Date.now();
    const gateway = await startInFrontOf(open, hung, { 'headers-timeout-ms': 15_000 }, 8_000);
    expect(gateway, 'the gateway was not listening 8 s after start (headers-timeout-ms: 15 s)').toBeDefined();
    expect(Date.now() - startedAt).toBeLessThan(8_000);
    expect(hung.accepted()).toBeGreaterThan(0);
    const health = await fetch(`${gateway!.url}/health`);
    expect(health.status).toBe(200);
    expect((await fetch(`${gateway!.url}/ready`)).status).toBe(503);
    // Closing does not wait for the detection still pending.
    const closedAt = Date.now();
    open.splice(open.indexOf(gateway!), 1);
    await gateway!.close();
    expect(Date.now() - closedAt).toBeLessThan(5_000);
  }, 20_000);

  it('calls meanwhile get their protocol error within the upstream bound, and /ready stays 503', async ({ expect, onTestFinished }) => {
    const open = openedBy(onTestFinished);
    const hung = await startHungServer();
    open.push(hung);
    const gateway = await startInFrontOf(open, hung, { 'headers-timeout-ms': 2_000 }, 8_000);
    expect(gateway).toBeDefined();
    const calledAt = Date.now();
    const [rpc, rest] = await Promise.all([
      fetch(`${gateway!.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } }),
      }),
      fetch(`${gateway!.url}/tasks/t`, { headers: { 'a2a-version': '1.0' } }),
    ]);
    const body = (await rpc.json()) as { id?: number; error?: { code: number } };
    expect(body.id).toBe(1);
    expect(body.error?.code).toBe(ErrorCode.Internal);
    // HTTP+JSON: a google.rpc.Status; an agent that took the connection and never answered is the hop's
    // bound passing (hop-failures.test.ts).
    expect(rest.status).toBe(504);
    expect(await rest.json()).toMatchObject({ error: { code: 504, status: 'DEADLINE_EXCEEDED' } });
    // The detection still pending (at most headers-timeout-ms) and one more of its own: not a hang.
    expect(Date.now() - calledAt).toBeLessThan(2 * 2_000 + 2_000);
    expect((await fetch(`${gateway!.url}/ready`)).status).toBe(503);
  }, 20_000);
});

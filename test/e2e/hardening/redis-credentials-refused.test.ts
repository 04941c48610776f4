/**
 * A gateway on `store: redis` with push over Redis Streams whose Redis comes to refuse the configured
 * password (changed under it, every connection dropped): its calls answer an error promptly and
 * `close()` ends promptly, however long the refusal has lasted. Its connections' commands used to stay
 * pending for as long as Redis refused them (ioredis keeps a command sent on a connection that dropped
 * until a connection is ready again), so the push queue's stop, and the gateway's close with it, never
 * ended. A redis-server of the test's own, with a password.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startPasswordRedis, type PasswordRedis } from '../../support/password-redis.js';
import { waitUntil } from '../../support/wait-until.js';
import { exchange } from './support.js';

const PASSWORD = 'gateway-refused-password-77d0';
const OTHER_PASSWORD = 'gateway-rotated-password-e4a1';
const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const getTask = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'some-task' } });
/** What close() may take: a couple of seconds (no delivery is in flight here). */
const CLOSE_BOUND_MS = 3_000;
/**
 * Each Redis command's own bound in this test, and the bound on a call's answer: a call whose command waited on Redis
 * would wait out the first, far past the second; one failed while Redis refuses answers well within the second
 * however loaded the host (the 1 s it was, a stall alone can outlast).
 */
const COMMAND_BOUND_MS = 60_000;
const ANSWER_BOUND_MS = 10_000;

let server: PasswordRedis;

const changePassword = () => server.changePassword(PASSWORD, OTHER_PASSWORD);

function startGateway(): Promise<TestGateway> {
  return startTestGateway({
    store: 'redis',
    'redis-url': server.url(PASSWORD),
    'redis-prefix': `credentials-refused-${process.pid}:`,
    'push-notifications': true,
    'push-queue': 'redis-streams',
    'redis-command-timeout-ms': COMMAND_BOUND_MS,
  });
}

async function closedWithin(gateway: TestGateway): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still closing'>((resolve) => (timer = setTimeout(() => resolve('still closing'), 10_000)));
  const outcome = await Promise.race([gateway.close().then(() => 'closed' as const), bound]);
  clearTimeout(timer);
  expect(outcome).toBe('closed');
  return Date.now() - started;
}

beforeAll(async () => {
  server = await startPasswordRedis(PASSWORD);
});
afterEach(async () => {
  await server.admin(OTHER_PASSWORD, (redis) => redis.config('SET', 'requirepass', PASSWORD)).catch(() => undefined);
});
afterAll(() => server.stop());

describe('a gateway whose Redis comes to refuse the configured password', () => {
  it('closes promptly right after the change', async () => {
    const gateway = await startGateway();
    await changePassword();
    expect(await closedWithin(gateway)).toBeLessThan(CLOSE_BOUND_MS);
  });

  it('answers a call with an error promptly and closes promptly after refusals went on for seconds', async () => {
    const gateway = await startGateway();
    let closed = false;
    try {
      await changePassword();
      await waitUntil(async () => JSON.stringify(gateway.log()).includes('WRONGPASS'));
      // Long enough for ioredis's attempts to be more than a second apart.
      await sleep(5_000);
      const started = Date.now();
      const answer = await exchange(`${gateway.url}/`, { method: 'POST', headers: V1, body: getTask });
      expect(Date.now() - started).toBeLessThan(ANSWER_BOUND_MS);
      expect((JSON.parse(answer.text) as { error?: { code: number } }).error?.code).toBe(-32603);
      closed = true;
      expect(await closedWithin(gateway)).toBeLessThan(CLOSE_BOUND_MS);
    } finally {
      if (!closed) await gateway.close();
    }
  }, 30_000);
});

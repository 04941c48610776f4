/**
 * A pod start with `store: redis`: Kubernetes probes `/ready` as soon as `/health` answers. The gateway
 * listens only once its task store's first Redis connection was made or failed (redis/first-attempt.ts):
 * with a healthy Redis the first `/ready` is 200 without a warning about a Redis that is fine; with one that
 * cannot be reached the first `/ready` already says so.
 */
import { afterEach, expect, it } from 'vitest';
import { CLOSED_PORT } from '../../support/free-port.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

let fake: FakeIacCode | undefined;
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await fake?.close();
  gateway = fake = undefined;
});

const notReadyLines = (log: ReturnType<TestGateway['log']>) =>
  log.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('/ready: not ready'));

it('a healthy Redis: the first /ready after start is 200, and nothing warns', async () => {
  fake = await startFakeIacCode({});
  // caller-settings as a deployment sets it: without it, the per-turn settings open to every caller are warned of.
  const upstream = { url: fake.url, 'caller-settings': [] };
  gateway = await startTestGateway({ upstream, store: 'redis', 'redis-prefix': `ready-at-start-${process.pid}:` });
  expect((await fetch(`${gateway.url}/ready`)).status).toBe(200);
  expect(gateway.log().filter((line) => line.level >= 40)).toEqual([]);
});

it('a Redis out of reach at start: the first /ready after start is 503, and says the store cannot be reached', async () => {
  fake = await startFakeIacCode({});
  gateway = await startTestGateway({
    upstream: { url: fake.url },
    store: 'redis',
    'redis-url': `redis://127.0.0.1:${CLOSED_PORT}/0`,
    'redis-prefix': `ready-at-start-${process.pid}:`,
  });
  expect((await fetch(`${gateway.url}/ready`)).status).toBe(503);
  expect(notReadyLines(gateway.log())).toMatchObject([{ storeReachable: false }]);
});

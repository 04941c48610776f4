/**
 * Push through Sentinel: the push service's own Redis (configs, follows) and the redis-streams queue
 * reach the primary a sentinel names (`redis+sentinel://` in `redis-url` and `push-redis-url`), and a
 * turn's end is delivered once. A primary, a replica and a sentinel of the test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ctx, flush, startEnvironment, startHarness, streamTurn, userText, Receiver, type Environment, type Harness } from './harness.js';
import { ownSentinel, type OwnSentinel } from '../../support/redis-sentinel.js';

let sentinel: OwnSentinel;
let env: Environment;
let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  sentinel = await ownSentinel();
  env = await startEnvironment();
  h = await startHarness(env, {
    'redis-url': sentinel.url,
    'push-queue': 'redis-streams',
    'push-redis-url': sentinel.url,
    'push-stream': 'sentinel-push:stream',
    'push-retry-key': 'sentinel-push:retry',
    'push-dead-stream': 'sentinel-push:dead',
    'push-consumer-group': 'sentinel-push-group',
    'push-lease-timeout-ms': 500,
  });
  receiver = await new Receiver().up();
}, 30_000);
afterAll(async () => {
  await h?.close();
  await receiver?.down();
  await env?.close();
  await sentinel?.stop();
});

describe('push with its Redis reached through Sentinel', () => {
  it("delivers a turn's end once, queued on the primary the sentinel names", async () => {
    const alice = ctx('basic:alice');
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, alice);
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, id: 'hook', url: `${receiver.url}/hook`, token: 'tok' }, alice);
    await streamTurn(h.port, { message: userText('next', { taskId: first.taskId }) }, alice);
    await flush(h, receiver);
    expect(receiver.at('/hook')).toHaveLength(1);
    expect(receiver.at('/hook')[0]!.json).toMatchObject({ task: { id: first.taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });

    const primary = sentinel.direct(await sentinel.currentPrimary());
    primary.on('error', () => undefined);
    try {
      // The queue's stream and its consumer group live on the primary: both jobs (the turn's end and the
      // flush) went through it.
      const groups = (await primary.xinfo('GROUPS', 'sentinel-push:stream')) as unknown[][];
      const group = Object.fromEntries(Array.from({ length: groups[0]!.length / 2 }, (_, i) => [groups[0]![2 * i], groups[0]![2 * i + 1]]));
      expect(group).toMatchObject({ name: 'sentinel-push-group' });
      expect(Number(group['entries-read'])).toBeGreaterThanOrEqual(2);
    } finally {
      primary.disconnect();
    }
  });
});

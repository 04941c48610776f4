/**
 * A Redis that stops answering (frozen: its connections stay open, nothing comes back) answers a read only at the
 * command's own time-out, seconds. A wait for a turn to be let go (ContextLanes.letGo) is bounded by its caller
 * (the 0.2.5 facade's message, 150 ms): it must end at that bound, not one command time-out later.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import type { ContextLanes } from '../../src/core/context-lanes.js';
import { ownRedis, type OwnRedis } from '../support/redis-server.js';

let redis: OwnRedis;
let lanes: ContextLanes;
beforeAll(async () => {
  redis = await ownRedis();
  // The product's default `redis-command-timeout-ms`.
  lanes = createRedisContextLanes({ url: redis.url, prefix: 'frozen:', leaseMs: 30_000, commandTimeoutMs: 5_000 });
});
afterAll(async () => {
  redis?.thaw();
  await lanes?.close();
  await redis?.remove();
});

it('a wait for a running turn to be let go ends at its own bound while Redis answers nothing', async () => {
  const running = await lanes.tryAcquire('K');
  running!.runsTask('T1');
  redis.freeze();
  try {
    // Not at the 5 s command time-out: half of it, which a busy host does not reach.
    const started = Date.now();
    await lanes.letGo('K', 150);
    expect(Date.now() - started).toBeLessThan(2_500);
    const idleStarted = Date.now();
    await lanes.letGo('L', 150);
    expect(Date.now() - idleStarted).toBeLessThan(2_500);
  } finally {
    redis.thaw();
  }
}, 30_000);

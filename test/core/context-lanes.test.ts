import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, beforeAll } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { createContextLanesFor } from '../../src/core/context-lanes-factory.js';
import { createContextLanes, type ContextLanes } from '../../src/core/context-lanes.js';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { hasFastProperties } from '../support/fast-properties.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:lanes:${randomUUID()}:`;
const admin = new Redis(REDIS_URL);

/** Lanes under test and a second view of the same lanes: another replica for Redis, the same instance in memory. */
interface LanesHandle {
  lanes: ContextLanes;
  replica: ContextLanes;
}

const opened: ContextLanes[] = [];
const open = (lanes: ContextLanes) => (opened.push(lanes), lanes);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((lanes) => lanes.close()));
});

afterAll(async () => {
  const keys = await admin.keys(`${RUN_PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

const factories: Array<[string, () => LanesHandle]> = [
  [
    'memory',
    () => {
      const lanes = open(createContextLanes());
      return { lanes, replica: lanes };
    },
  ],
  [
    'redis',
    () => {
      const prefix = `${RUN_PREFIX}${randomUUID()}:`;
      return {
        lanes: open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 10_000 })),
        replica: open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 10_000 })),
      };
    },
  ],
];

describe.each(factories)('%s context lanes', (_name, make) => {
  it('holds one lease per key, for every replica; other keys are independent', async () => {
    const { lanes, replica } = make();
    const first = await lanes.tryAcquire('up\u0000C');
    expect(first?.key).toBe('up\u0000C');
    expect(await lanes.tryAcquire('up\u0000C')).toBeUndefined();
    expect(await replica.tryAcquire('up\u0000C')).toBeUndefined();
    expect(await replica.tryAcquire('up\u0000D')).toBeDefined();
    await first!.release();
    expect(await replica.tryAcquire('up\u0000C')).toBeDefined();
  });

  it('lets exactly one of many concurrent acquirers win', async () => {
    const { lanes, replica } = make();
    const attempts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? lanes : replica).tryAcquire('race')));
    expect(attempts.filter((lease) => lease !== undefined)).toHaveLength(1);
  });

  it('release is idempotent and never frees a lane taken since', async () => {
    const { lanes, replica } = make();
    const first = await lanes.tryAcquire('K');
    await first!.release();
    const second = await replica.tryAcquire('K', 'T2');
    expect(second).toBeDefined();
    await first!.release();
    expect(await lanes.tryAcquire('K')).toBeUndefined();
    expect(await lanes.holderTask('K')).toBe('T2');
  });

  it('reports the paused task holding the lane, named at acquire or bound later and cleared, to every replica', async () => {
    const { lanes, replica } = make();
    expect(await replica.holderTask('K')).toBeUndefined();
    const named = await lanes.tryAcquire('K', 'T1');
    expect(named?.taskId).toBe('T1');
    expect(await replica.holderTask('K')).toBe('T1');
    await named!.release();
    expect(await replica.holderTask('K')).toBeUndefined();

    const unnamed = await lanes.tryAcquire('K');
    expect(unnamed?.taskId).toBeUndefined();
    expect(await replica.holderTask('K')).toBeUndefined();
    unnamed!.bindTask('T2');
    expect(unnamed?.taskId).toBe('T2');
    // Bound without waiting; the replica's read may only come after the bind, as a later request would.
    await expect.poll(() => replica.holderTask('K')).toBe('T2');
    // The turn goes on: the lane names no paused task any more, though it is still held.
    unnamed!.bindTask(undefined);
    expect(unnamed?.taskId).toBeUndefined();
    await expect.poll(() => replica.holderTask('K')).toBeUndefined();
    expect(await replica.tryAcquire('K')).toBeUndefined();
    await unnamed!.release();
  });

  it("makes a lease an ordinary object, not a dictionary: every open stream holds its turn's", async () => {
    const { lanes } = make();
    const lease = await lanes.tryAcquire('K', 'T1');
    lease!.bindTask('T2');
    expect(lease!.taskId).toBe('T2');
    expect(hasFastProperties(lease!)).toBe(true);
    await lease!.release();
  });

  it('lets a waiter go once the running turn holding the lane is released, at its bound while it runs, at once when none runs', async () => {
    const { lanes, replica } = make();
    // Not waiting means well under the 5 s bound it would wait for (half of it: a slow host cannot blur that).
    expect(await took(() => replica.letGo('K', 5_000))).toBeLessThan(2_500);
    // A paused turn's lane: a message may ride along into it, nothing is waited for.
    const paused = await lanes.tryAcquire('K', 'T1');
    expect(await took(() => replica.letGo('K', 5_000))).toBeLessThan(2_500);
    await paused!.release();

    const running = await lanes.tryAcquire('K');
    running!.runsTask('T2');
    const releasing = setTimeout(() => void running!.release(), 200);
    const letGoAfter = await took(() => replica.letGo('K', 5_000)).finally(() => clearTimeout(releasing));
    expect(letGoAfter).toBeGreaterThanOrEqual(150);
    expect(letGoAfter).toBeLessThan(2_500);
    expect(await replica.tryAcquire('K')).toBeDefined();

    const stillRunning = await lanes.tryAcquire('L');
    expect(await took(() => replica.letGo('L', 200))).toBeGreaterThanOrEqual(190);
    expect(await replica.tryAcquire('L')).toBeUndefined();
    await stillRunning!.release();
  });

  it('says how the wait ended: nothing ran, the running turn let go, or it still ran at the bound', async () => {
    const { lanes, replica } = make();
    expect(await replica.letGo('K', 5_000)).toBe('free');
    const paused = await lanes.tryAcquire('K', 'T1');
    expect(await replica.letGo('K', 5_000)).toBe('free');
    await paused!.release();

    const running = await lanes.tryAcquire('K');
    const releasing = setTimeout(() => void running!.release(), 200);
    expect(await replica.letGo('K', 5_000).finally(() => clearTimeout(releasing))).toBe('let-go');

    // Still running at the bound: a caller told so refuses its message rather than race for the lane (the 0.2.5
    // facade's turn in progress), though it is let go a moment later.
    const stillRunning = await lanes.tryAcquire('L');
    expect(await replica.letGo('L', 200)).toBe('held');
    await stillRunning!.release();
    expect(await replica.letGo('L', 200)).toBe('free');
  });
});

/** How long `wait` took, in ms. */
async function took(wait: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await wait();
  return Date.now() - started;
}

describe('redis context lanes: leases', () => {
  const prefixed = () => `${RUN_PREFIX}${randomUUID()}:`;

  it('keeps renewing a held lease past its lifetime, and deletes it on release', async () => {
    const prefix = prefixed();
    // A lease long enough that a busy host's stalls (a second and more at a load of 30 on 2 cores) do not
    // outlast a renewal's interval and the rest of the lease.
    const lanes = open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 1_500 }));
    const replica = open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 1_500 }));
    const lease = await lanes.tryAcquire('K', 'T');
    // Time passing is what is tested: over two lease lifetimes.
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    expect(await replica.tryAcquire('K')).toBeUndefined();
    expect(await admin.pttl(`${prefix}lane:K`)).toBeGreaterThan(0);
    await lease!.release();
    expect(await admin.exists(`${prefix}lane:K`)).toBe(0);
  });

  it('frees the lane of a holder that stopped renewing once its lease expires; the old holder cannot free the new one', async () => {
    const prefix = prefixed();
    const shared = new Redis(REDIS_URL);
    try {
      // A replica that dies: its renewals stop (close), its late release must not touch the next holder. Its lane
      // names no task (a named one close() marks as a dead holder's: context-lanes-stopped.test.ts).
      // Leases of 1.5 s: with 400 ms, a loaded host's stall before the check that the lane is still held outlasted it.
      const dying = createRedisContextLanes({ redis: shared, prefix, leaseMs: 1_500 });
      const replica = open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 1_500 }));
      const stale = await dying.tryAcquire('K');
      await dying.close();
      const stoppedAt = Date.now();
      expect(await replica.tryAcquire('K')).toBeUndefined();

      let taken: Awaited<ReturnType<ContextLanes['tryAcquire']>>;
      await expect.poll(async () => (taken ??= await replica.tryAcquire('K', 'T2')), { timeout: 5_000, interval: 50 }).toBeDefined();
      // Freed by its lease running out, not by the close: half the lease, whatever a stall took of it before the close.
      expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(750);

      await stale!.release();
      expect(await replica.holderTask('K')).toBe('T2');
      stale!.bindTask('T1');
      await taken!.release();
      expect(await admin.exists(`${prefix}lane:K`)).toBe(0);
    } finally {
      await shared.quit();
    }
  });

  it('lets a waiter go at once from the lane of a holder that stopped renewing: it lets nothing go any more', async () => {
    const prefix = prefixed();
    const shared = new Redis(REDIS_URL);
    try {
      const dying = createRedisContextLanes({ redis: shared, prefix, leaseMs: 1_200 });
      const replica = open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 1_200 }));
      await dying.tryAcquire('K');
      await dying.close();
      expect(await took(() => replica.letGo('K', 300))).toBeGreaterThanOrEqual(290);
      // Past a missed renewal (1 200 - 400 - 200 ms of its lease left), though the lease is still there.
      // At once: not at its 5 s bound (half of it, so a slow host cannot blur the two), nor once the lease
      // expired (the lease is still there after it).
      await expect.poll(() => took(() => replica.letGo('K', 5_000)), { timeout: 3_000, interval: 50 }).toBeLessThan(2_500);
      expect(await admin.exists(`${prefix}lane:K`)).toBe(1);
    } finally {
      await shared.quit();
    }
  });

  it('escapes keys, so a key cannot reach outside the lane namespace', async () => {
    const prefix = prefixed();
    const lanes = open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 10_000 }));
    const lease = await lanes.tryAcquire('http://up:1/\u0000ctx 1');
    expect(await admin.keys(`${prefix}*`)).toEqual([`${prefix}lane:http%3A%2F%2Fup%3A1%2F%00ctx%201`]);
    await lease!.release();
  });
});

describe('createContextLanesFor', () => {
  it('shares lanes through Redis with store: redis, keeps them in process otherwise', async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    const config = defaultConfig({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix });
    expect(config.tasks['lane-lease-ms']).toBe(30_000);
    const a = open(createContextLanesFor(config));
    const b = open(createContextLanesFor(config));
    const lease = await a.tryAcquire('K');
    expect(await b.tryAcquire('K')).toBeUndefined();
    const ttl = await admin.pttl(`${prefix}lane:K`);
    expect(ttl).toBeGreaterThan(20_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await lease!.release();

    const memoryA = open(createContextLanesFor(defaultConfig()));
    const memoryB = open(createContextLanesFor(defaultConfig()));
    expect(await memoryA.tryAcquire('K')).toBeDefined();
    expect(await memoryB.tryAcquire('K')).toBeDefined();
  });
});

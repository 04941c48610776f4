/**
 * A replica that shuts down (close()) while a turn still holds a lane: a rollout cut the caller's stream, the
 * agent goes on with the turn, and the lane is released only when that turn's stream ends, which may be after
 * the lanes closed. The lane must then come free to another replica as soon as the registry records the turn
 * over, not a renewal's interval later (11–12 s with the default 30 s lease); a turn still running keeps it.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ContextLanes, RecordedState } from '../../src/core/context-lanes.js';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import type { TaskState } from '../../src/model/index.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:lanes-stopped:${randomUUID()}:`;
// The default `tasks.lane-lease-ms`: a stopped holder's lane left as it was is judged dead only 12 s on.
const LEASE_MS = 30_000;
const admin = new Redis(REDIS_URL);
const opened: ContextLanes[] = [];
const open = (lanes: ContextLanes) => (opened.push(lanes), lanes);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((lanes) => lanes.close()));
});
afterAll(async () => {
  await deleteRedisKeys(RUN_PREFIX);
  await admin.quit();
});

const recorded =
  (taskId: string, state: TaskState): RecordedState =>
  async (id) =>
    id === taskId ? state : undefined;

/** Replica A holding lane K named as `name` says, and replica B on the same lanes. */
async function holding(name: { runs?: string; paused?: string }, options: { redis?: Redis; logger?: { warn: () => void } } = {}) {
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const lanesOf = (redis?: Redis) => createRedisContextLanes({ ...(redis ? { redis } : { url: REDIS_URL }), prefix, leaseMs: LEASE_MS, ...options });
  const a = lanesOf(options.redis);
  const lease = (await a.tryAcquire('K'))!;
  if (name.runs) lease.runsTask(name.runs);
  if (name.paused) lease.bindTask(name.paused);
  await expect.poll(async () => admin.get(`${prefix}lane:K`)).toMatch(new RegExp(`\\|${name.runs ? '\\|' + name.runs : (name.paused ?? '')}$`));
  return { prefix, a, lease, b: open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: LEASE_MS })) };
}

describe('redis context lanes: a replica that stops holding a lane', () => {
  it('lets another replica take it at once once the registry records its turn over', async () => {
    for (const state of ['TASK_STATE_COMPLETED', 'TASK_STATE_INPUT_REQUIRED'] as const) {
      const { a, b } = await holding({ runs: 'T1' });
      await a.close();
      expect(await b.tryAcquire('K', undefined, recorded('T1', state))).toBeDefined();
    }
  });

  it('keeps it while the registry records its turn still running at the agent', async () => {
    const { a, b, prefix } = await holding({ runs: 'T1' });
    await a.close();
    expect(await b.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_WORKING'))).toBeUndefined();
    expect(await b.tryAcquire('K')).toBeUndefined();
    // Until its lease runs out, as a crashed replica's.
    expect(await admin.pttl(`${prefix}lane:K`)).toBeGreaterThan(LEASE_MS / 2);
  });

  it('no longer names its paused turn as live: no answer rides along into a stream gone with its holder', async () => {
    const { a, b } = await holding({ paused: 'T1' });
    expect(await b.holderTask('K')).toBe('T1');
    await a.close();
    expect(await b.holderTask('K')).toBeUndefined();
    expect(await b.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_INPUT_REQUIRED'))).toBeDefined();
  });

  it('leaves a lane another replica took since as it is', async () => {
    const { a, b, lease, prefix } = await holding({ runs: 'T1' });
    // A's lease was lost (it stalled for a whole lease), and B took the lane.
    await admin.del(`${prefix}lane:K`);
    const taken = (await b.tryAcquire('K'))!;
    taken.runsTask('T2');
    await expect.poll(async () => admin.get(`${prefix}lane:K`)).toMatch(/\|\|T2$/);
    await a.close();
    await lease.release();
    expect(await admin.pttl(`${prefix}lane:K`)).toBeGreaterThan(LEASE_MS - 5_000);
    expect(await b.tryAcquire('K', undefined, recorded('T2', 'TASK_STATE_COMPLETED'))).toBeUndefined();
  });

  it('says nothing of a turn that ends after it closed: its lane was marked there', async () => {
    const logger = { warn: vi.fn(), info: vi.fn(), error: vi.fn() };
    const { a, lease } = await holding({ runs: 'T1' }, { logger });
    await a.close();
    lease.runsTask('T2');
    await lease.release();
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('on a shared connection, which lives on, a turn that ends after it closed still frees its lane', async () => {
    const shared = new Redis(REDIS_URL);
    try {
      const { a, lease, b } = await holding({ runs: 'T1' }, { redis: shared });
      await a.close();
      await lease.release();
      expect(await b.tryAcquire('K')).toBeDefined();
    } finally {
      await shared.quit();
    }
  });
});

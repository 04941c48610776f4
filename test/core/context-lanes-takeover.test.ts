/** A lane whose holder died (never renewed, never released) is taken over once the registry records its turn ended. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContextLanes, Lease, RecordedState } from '../../src/core/context-lanes.js';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import type { TaskState } from '../../src/model/index.js';
import { failingOnce } from '../support/failing-redis-script.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:lanes-takeover:${randomUUID()}:`;
const LEASE_MS = 10_000;
const admin = new Redis(REDIS_URL);
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

/** A registry that records one task in `state`. */
const recorded =
  (taskId: string, state: TaskState): RecordedState =>
  async (id) =>
    id === taskId ? state : undefined;

/**
 * A replica that took lane K, named its task as `runs` (running) or `paused`, then died: its renewals
 * stopped, its lane never released. And a live replica on the same lanes.
 */
async function deadHolder(name: { runs?: string; paused?: string; onlyFinishedEnds?: boolean }) {
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const make = () => open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: LEASE_MS }));
  const dying = make();
  const lease = (await dying.tryAcquire('K'))!;
  if (name.runs) lease.runsTask(name.runs, { onlyFinishedEnds: name.onlyFinishedEnds === true });
  if (name.paused) lease.bindTask(name.paused);
  const expected = name.paused ?? (name.runs ? `${name.onlyFinishedEnds ? '||' : '|'}${name.runs}` : '');
  await expect.poll(async () => (await admin.get(`${prefix}lane:K`))?.endsWith(`|${expected}`)).toBe(true);
  await dying.close();
  // Dead a while: its lease has run down past what a renewal would have left.
  await admin.pexpire(`${prefix}lane:K`, LEASE_MS / 2);
  return { prefix, replica: make(), other: make(), make };
}

describe('redis context lanes: taking over the lane of a dead holder', () => {
  it('admits a new turn at once when the registry records the running turn completed, and the dead holder cannot free it', async () => {
    const { prefix, replica } = await deadHolder({ runs: 'T1' });
    const startedAt = Date.now();
    const taken = await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_COMPLETED'));
    expect(taken).toBeDefined();
    // Long before the dead holder's lease would have expired.
    expect(Date.now() - startedAt).toBeLessThan(LEASE_MS / 4);
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_COMPLETED'))).toBeUndefined();
    await taken!.release();
    expect(await admin.exists(`${prefix}lane:K`)).toBe(0);
  });

  it('refuses while the registry records the running turn working, or does not know its task', async () => {
    const { replica } = await deadHolder({ runs: 'T1' });
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_WORKING'))).toBeUndefined();
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_SUBMITTED'))).toBeUndefined();
    expect(await replica.tryAcquire('K', undefined, recorded('other', 'TASK_STATE_COMPLETED'))).toBeUndefined();
    // Without the registry's word nothing is taken over, as before.
    expect(await replica.tryAcquire('K')).toBeUndefined();
  });

  it('refuses on a lane that names no task: its turn cannot be judged', async () => {
    const { replica } = await deadHolder({});
    expect(await replica.tryAcquire('K', undefined, async () => 'TASK_STATE_COMPLETED')).toBeUndefined();
  });

  it('lets only one of racing takers in', async () => {
    const { replica, other } = await deadHolder({ runs: 'T1' });
    const ended = recorded('T1', 'TASK_STATE_FAILED');
    const attempts = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? replica : other).tryAcquire('K', undefined, ended)));
    expect(attempts.filter((lease) => lease !== undefined)).toHaveLength(1);
  });

  it('takes a running turn’s lane whose task the registry records waiting for input: the agent asked its question, the turn is over', async () => {
    for (const state of ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'] as const) {
      const { replica } = await deadHolder({ runs: 'T1' });
      // Nothing rides along into a turn named as running.
      expect(await replica.holderTask('K')).toBeUndefined();
      expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_WORKING'))).toBeUndefined();
      expect(await replica.tryAcquire('K', undefined, recorded('T1', state))).toBeDefined();
    }
  });

  it('takes a dead paused turn’s lane whose task waits for input, and no answer rides along into its stream, gone with its holder', async () => {
    const { replica, make } = await deadHolder({ paused: 'T1' });
    expect(await replica.holderTask('K')).toBeUndefined();
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_INPUT_REQUIRED'))).toBeDefined();
    // A live holder's paused turn is named to every replica, and an answer rides along into it.
    const live = (await make().tryAcquire('L'))!;
    live.bindTask('T2');
    await expect.poll(() => replica.holderTask('L')).toBe('T2');
  });

  it('takes a blocking follow-up’s lane only once its task finished: the registry holds the question the turn answers until then', async () => {
    const { replica } = await deadHolder({ runs: 'T1', onlyFinishedEnds: true });
    expect(await replica.holderTask('K')).toBeUndefined();
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_INPUT_REQUIRED'))).toBeUndefined();
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_COMPLETED'))).toBeDefined();
  });
});

describe('redis context lanes: a live holder keeps its lane', () => {
  async function liveHolder() {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    const make = () => open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: LEASE_MS }));
    const holder = make();
    const lease: Lease = (await holder.tryAcquire('K'))!;
    lease.runsTask('T1');
    await expect.poll(async () => admin.get(`${prefix}lane:K`)).toMatch(/\|\|T1$/);
    return { lease, replica: make() };
  }

  it('whose task the registry records finished early (recorded lost or canceled by another replica), or paused: it still renews', async () => {
    const { replica } = await liveHolder();
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_FAILED'))).toBeUndefined();
    // Its turn has just paused: the registry records it a moment before the lane names it paused.
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_INPUT_REQUIRED'))).toBeUndefined();
  });

  it('names a running task as paused over it, and nothing again after a pause ends, until it names it anew', async () => {
    const { lease, replica } = await liveHolder();
    lease.bindTask('T1');
    lease.runsTask('T1');
    await expect.poll(() => replica.holderTask('K')).toBe('T1');
    lease.bindTask(undefined);
    await expect.poll(() => replica.holderTask('K')).toBeUndefined();
    // Resumed: the lane names no task until the turn names it anew, so nothing judges it by an old state.
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_COMPLETED'))).toBeUndefined();
  });
});

describe('redis context lanes: a live holder whose renewal failed once', () => {
  // Short, so the renewal comes soon: renewed every 1 s, judged dead with less than 1.5 s left.
  const SHORT_LEASE_MS = 3_000;

  it('tries it again at once: its paused turn keeps its lane, and an answer still rides along into it', async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    const make = () => open(createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: SHORT_LEASE_MS }));
    // A Redis blip fails the holder's first renewal.
    const { connected: holder, failed } = failingOnce('a2aBridgeLaneRenew', make);
    const replica = make();
    const lease = (await holder.tryAcquire('K'))!;
    lease.bindTask('T1');
    await expect.poll(() => replica.holderTask('K')).toBe('T1');
    await failed;
    // Past the slack a renewal has, before the next one is due: had it waited for that one, it would be judged dead now.
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(await replica.holderTask('K')).toBe('T1');
    expect(await replica.tryAcquire('K', undefined, recorded('T1', 'TASK_STATE_INPUT_REQUIRED'))).toBeUndefined();
  });
});

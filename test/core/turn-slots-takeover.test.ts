/**
 * A client's turn slot whose holder died (never renewed, never given back) is taken over at the cap once the
 * registry records its turn over, as a context lane is (context-lanes-takeover.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { CallContext } from '../../src/core/agent-port.js';
import type { RecordedState } from '../../src/core/context-lanes.js';
import type { TurnSlot, TurnSlots } from '../../src/core/turn-limits.js';
import { createRedisTurnSlots } from '../../src/core/turn-slots-redis.js';
import type { TaskState } from '../../src/model/index.js';
import { failingOnce } from '../support/failing-redis-script.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:turn-slots-takeover:${randomUUID()}:`;
const LEASE_MS = 10_000;
const admin = new Redis(REDIS_URL);
const opened: TurnSlots[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((slots) => slots.close()));
});
afterAll(async () => {
  await deleteRedisKeys(RUN_PREFIX);
  await admin.quit();
});

const ALICE: CallContext = { principal: 'p:alice', signal: new AbortController().signal };

/** A registry that records one task in `state`. */
const recorded =
  (taskId: string, state: TaskState): RecordedState =>
  async (id) =>
    id === taskId ? state : undefined;

/** Replicas whose clients may each run one turn at a time. */
function replicas(leaseMs = LEASE_MS) {
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const limits = defaultConfig({ limits: { 'turns-in-flight-per-client': 1 } }).limits;
  const make = () => {
    const slots = createRedisTurnSlots(limits, { url: REDIS_URL, prefix, leaseMs, answerWithinMs: 2_000 })!;
    opened.push(slots);
    return slots;
  };
  const key = `${prefix}turns:${encodeURIComponent(ALICE.principal)}`;
  // Each take is a call of its own, with its own signal: a slot listens on its call's signal until released.
  const take = async (slots: TurnSlots, state?: RecordedState): Promise<TurnSlot | undefined> =>
    slots.take({ ...ALICE, signal: new AbortController().signal }, state);
  return { make, key, take };
}

/** A replica took Alice's slot, named its turn's task T1 as `name` says, then died: its renewals stopped, its slot never given back. */
async function deadHolder(name: (slot: TurnSlot) => void) {
  const { make, key, take } = replicas();
  const dying = make();
  const slot = (await take(dying))!;
  name(slot);
  await expect.poll(async () => (await admin.zrange(key, 0, -1))[0]).toMatch(/\|/);
  await dying.close();
  // Dead a while: its lease has run down past what a renewal would have left.
  const [seconds] = await admin.time();
  const [member] = await admin.zrange(key, 0, -1);
  await admin.zadd(key, 'XX', Number(seconds) * 1000 + LEASE_MS / 2, member!);
  return { key, make, take, replica: make() };
}

describe('redis turn slots: taking over the slot of a dead holder', () => {
  it('lets the client’s next turn in at once when the registry records the turn completed, or waiting for input', async () => {
    for (const state of ['TASK_STATE_COMPLETED', 'TASK_STATE_INPUT_REQUIRED'] as const) {
      const { replica, take, key } = await deadHolder((slot) => slot.names!.runsTask('T1'));
      expect(await take(replica, recorded('T1', 'TASK_STATE_WORKING'))).toBeUndefined();
      expect(await take(replica)).toBeUndefined();
      const startedAt = Date.now();
      const taken = await take(replica, recorded('T1', state));
      expect(taken).toBeDefined();
      expect(Date.now() - startedAt).toBeLessThan(LEASE_MS / 4);
      // The dead holder's place, not one more: the cap still holds.
      expect(await admin.zcard(key)).toBe(1);
      expect(await take(replica, recorded('T1', state))).toBeUndefined();
    }
  });

  it('frees a paused turn’s slot as a running one’s', async () => {
    const { replica, take } = await deadHolder((slot) => slot.names!.bindTask('T1'));
    expect(await take(replica, recorded('T1', 'TASK_STATE_AUTH_REQUIRED'))).toBeDefined();
  });

  it('frees a blocking follow-up’s slot only once its task finished: the registry holds the question it answers until then', async () => {
    const { replica, take } = await deadHolder((slot) => slot.names!.runsTask('T1', { onlyFinishedEnds: true }));
    expect(await take(replica, recorded('T1', 'TASK_STATE_INPUT_REQUIRED'))).toBeUndefined();
    expect(await take(replica, recorded('T1', 'TASK_STATE_FAILED'))).toBeDefined();
  });

  it('lets only one of racing takers in', async () => {
    const { replica, make, take } = await deadHolder((slot) => slot.names!.runsTask('T1'));
    const other = make();
    const ended = recorded('T1', 'TASK_STATE_CANCELED');
    const attempts = await Promise.all(Array.from({ length: 10 }, (_, i) => take(i % 2 ? replica : other, ended)));
    expect(attempts.filter((slot) => slot !== undefined)).toHaveLength(1);
  });

  it('keeps a live holder’s slot however early the registry records its turn over: it still renews', async () => {
    const { make, key, take } = replicas();
    const holder = (await take(make()))!;
    holder.names!.runsTask('T1');
    await expect.poll(async () => (await admin.zrange(key, 0, -1))[0]).toMatch(/\|T1$/);
    expect(await take(make(), recorded('T1', 'TASK_STATE_COMPLETED'))).toBeUndefined();
    // Given back by name: the named member is the one removed.
    holder.release();
    await expect.poll(() => admin.zcard(key)).toBe(0);
  });

  it('keeps a live holder’s slot whose renewal failed once: it is tried again at once', async () => {
    // Short, so the renewal comes soon: renewed every 1 s, judged dead with less than 1.5 s left.
    const { make, key, take } = replicas(3_000);
    // A Redis blip fails the holder's first renewal.
    const { connected: holderSlots, failed } = failingOnce('a2aBridgeTurnRenew', make);
    const holder = (await take(holderSlots))!;
    holder.names!.bindTask('T1');
    await expect.poll(async () => (await admin.zrange(key, 0, -1))[0]).toMatch(/\|T1$/);
    await failed;
    // Past the slack a renewal has, before the next one is due: had it waited for that one, it would be judged dead now.
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(await take(make(), recorded('T1', 'TASK_STATE_INPUT_REQUIRED'))).toBeUndefined();
  });
});

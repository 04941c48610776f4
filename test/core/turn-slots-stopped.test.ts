/**
 * A replica that shuts down (close()) while a turn still holds a client's slot (a rollout cut the caller, the
 * agent goes on): at the cap, another replica takes the slot as soon as the registry records that turn over,
 * as a context lane is (context-lanes-stopped.test.ts), not a renewal's interval later; a turn still running keeps it.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { CallContext } from '../../src/core/agent-port.js';
import type { RecordedState } from '../../src/core/context-lanes.js';
import type { TurnSlots } from '../../src/core/turn-limits.js';
import { createRedisTurnSlots } from '../../src/core/turn-slots-redis.js';
import type { TaskState } from '../../src/model/index.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:turn-slots-stopped:${randomUUID()}:`;
// The default lease: a stopped holder's slot left as it was is judged dead only 12 s on.
const LEASE_MS = 30_000;
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
const recorded =
  (taskId: string, state: TaskState): RecordedState =>
  async (id) =>
    id === taskId ? state : undefined;

/** Replica A holding Alice's one slot for a turn running on T1, and replica B on the same Redis. */
async function holding(logger?: { warn: () => void }) {
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const limits = defaultConfig({ limits: { 'turns-in-flight-per-client': 1 } }).limits;
  const make = () =>
    createRedisTurnSlots(limits, { url: REDIS_URL, prefix, leaseMs: LEASE_MS, answerWithinMs: 2_000, ...(logger ? { logger } : {}) })!;
  const take = (slots: TurnSlots, state?: RecordedState) => slots.take({ ...ALICE, signal: new AbortController().signal }, state);
  const key = `${prefix}turns:${encodeURIComponent(ALICE.principal)}`;
  const a = make();
  const slot = (await take(a))!;
  slot.names!.runsTask('T1');
  await expect.poll(async () => (await admin.zrange(key, 0, -1))[0]).toMatch(/\|T1$/);
  const b = make();
  opened.push(b);
  return { a, b, slot, take, key };
}

describe('redis turn slots: a replica that stops holding a slot', () => {
  it('lets the client’s next turn in on another replica at once once the registry records the turn over', async () => {
    const { a, b, take, key } = await holding();
    await a.close();
    expect(await take(b, recorded('T1', 'TASK_STATE_WORKING'))).toBeUndefined();
    expect(await take(b, recorded('T1', 'TASK_STATE_COMPLETED'))).toBeDefined();
    // The stopped holder's place, not one more: the cap still holds.
    expect(await admin.zcard(key)).toBe(1);
  });

  it('says nothing of a turn that ends after it closed: its slot was marked there', async () => {
    const logger = { warn: vi.fn(), info: vi.fn(), error: vi.fn() };
    const { a, slot } = await holding(logger);
    await a.close();
    slot.names!.runsTask('T2');
    slot.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logger.warn).not.toHaveBeenCalled();
  });
});

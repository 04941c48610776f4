/**
 * The turn slots shared through Redis (core/turn-slots-redis.ts) by several slot instances, each one
 * replica with a connection of its own, against the real Redis: one cap across the replicas, taken
 * atomically; a slot given back once; a crashed replica's slots freed by their lease running out, a long
 * turn's kept by renewal; a Redis that does not answer refuses the turn within the bound (fail closed)
 * and is reported at most once a minute.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { CallContext } from '../../src/core/agent-port.js';
import { createTurnSlotsFor } from '../../src/core/turn-slots-factory.js';
import { createRedisTurnSlots, type RedisTurnSlotsOptions } from '../../src/core/turn-slots-redis.js';
import type { TurnSlot, TurnSlots } from '../../src/core/turn-limits.js';
import { A2AError, ErrorCode } from '../../src/model/index.js';
import { ownRedis } from '../support/redis-server.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:turn-slots:${randomUUID()}:`;
const admin = new Redis(REDIS_URL);

const opened: TurnSlots[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((slots) => slots.close()));
});
afterAll(async () => {
  const keys = await admin.keys(`${RUN_PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

const prefixed = (): string => `${RUN_PREFIX}${randomUUID()}:`;

interface ReplicaOptions {
  prefix: string;
  cap?: number;
  leaseMs?: number;
  byName?: Record<string, number>;
  url?: string;
  answerWithinMs?: number;
  logger?: RedisTurnSlotsOptions['logger'];
}

/** One replica's slots on `prefix`: every client capped at `cap`. */
function replica(options: ReplicaOptions): TurnSlots {
  const limits = defaultConfig({
    limits: { 'turns-in-flight-per-client': options.cap ?? 1, 'turns-in-flight-by-name': options.byName ?? {} },
  }).limits;
  const slots = createRedisTurnSlots(limits, {
    url: options.url ?? REDIS_URL,
    prefix: options.prefix,
    leaseMs: options.leaseMs ?? 10_000,
    answerWithinMs: options.answerWithinMs ?? 2_000,
    ...(options.logger ? { logger: options.logger } : {}),
  })!;
  opened.push(slots);
  return slots;
}

function caller(principal = 'p:alice', client?: string): CallContext & { leave(): void } {
  const controller = new AbortController();
  return { principal, ...(client ? { client } : {}), signal: controller.signal, leave: () => controller.abort() };
}

/** What `take` settles to, a slot or undefined at the cap. */
const take = async (slots: TurnSlots, ctx: CallContext = caller()): Promise<TurnSlot | undefined> => slots.take(ctx);

const slotsKey = (prefix: string, principal = 'p:alice'): string => `${prefix}turns:${encodeURIComponent(principal)}`;

describe('redis turn slots shared by replicas', () => {
  it('hold one cap across replicas: a slot held on A refuses B, and B takes it once A gives it back', async () => {
    const prefix = prefixed();
    const [a, b] = [replica({ prefix }), replica({ prefix })];
    const held = await take(a);
    expect(held).toBeDefined();
    expect(await take(b)).toBeUndefined();
    expect(await take(a)).toBeUndefined();
    expect(await b.inFlight(caller())).toBe(1);
    held!.release();
    await expect.poll(() => take(b)).toBeDefined();
  });

  it('let exactly the cap of many concurrent takers on two replicas win', async () => {
    const prefix = prefixed();
    const [a, b] = [replica({ prefix, cap: 3 }), replica({ prefix, cap: 3 })];
    const attempts = await Promise.all(Array.from({ length: 30 }, (_, i) => take(i % 2 ? a : b)));
    expect(attempts.filter((slot) => slot !== undefined)).toHaveLength(3);
    expect(await admin.zcard(slotsKey(prefix))).toBe(3);
  });

  it('count a name across its principals and replicas; other clients and other prefixes are independent', async () => {
    const prefix = prefixed();
    const [a, b] = [replica({ prefix, byName: { acme: 2 } }), replica({ prefix, byName: { acme: 2 } })];
    expect(await take(a, caller('p:old', 'acme'))).toBeDefined();
    expect(await take(b, caller('p:new', 'acme'))).toBeDefined();
    expect(await take(b, caller('p:old', 'acme'))).toBeUndefined();
    expect(await take(a, caller('p:old'))).toBeDefined();
    expect(await take(b, caller('p:bob'))).toBeDefined();

    const elsewhere = replica({ prefix: prefixed() });
    expect(await take(elsewhere, caller('p:old'))).toBeDefined();
  });

  it('give a slot back once, its own, however often it is released, and when its caller leaves', async () => {
    const prefix = prefixed();
    const [a, b] = [replica({ prefix, cap: 2 }), replica({ prefix, cap: 2 })];
    const first = (await take(a))!;
    const [firstHolder] = await admin.zrange(slotsKey(prefix), 0, -1);
    const second = (await take(b))!;
    second.release();
    second.release();
    await expect.poll(() => admin.zrange(slotsKey(prefix), 0, -1)).toEqual([firstHolder]);
    first.release();
    await expect.poll(() => a.inFlight(caller())).toBe(0);

    const third = (await take(a))!;
    await take(b);
    third.release();
    third.release();
    await expect.poll(() => a.inFlight(caller())).toBe(1);
    expect(await take(b)).toBeDefined();
    // The double release freed one slot, not two: the client is at its cap again.
    expect(await take(a)).toBeUndefined();

    const leaving = caller();
    const prefixB = prefixed();
    const c = replica({ prefix: prefixB });
    expect(await take(c, leaving)).toBeDefined();
    leaving.leave();
    await expect.poll(() => c.inFlight(leaving)).toBe(0);
    expect(await admin.exists(slotsKey(prefixB))).toBe(0);
  });

  it('give back at once a slot whose caller left while Redis was counting it', async () => {
    const prefix = prefixed();
    const slots = replica({ prefix });
    const ctx = caller();
    const taking = take(slots, ctx);
    ctx.leave();
    await taking;
    await expect.poll(() => slots.inFlight(ctx)).toBe(0);
  });

  it('leave nothing uncapped: a client without a cap takes no slot in Redis', async () => {
    const prefix = prefixed();
    const slots = replica({ prefix, byName: { free: 0 } });
    const ctx = caller('p:free', 'free');
    const slot = slots.take(ctx);
    expect(slot).not.toBeInstanceOf(Promise);
    expect(await admin.keys(`${prefix}*`)).toEqual([]);
  });
});

describe('redis turn slot leases', () => {
  it('free the slot of a replica that stopped renewing (crashed) once its lease runs out, while the others keep theirs', async () => {
    const prefix = prefixed();
    // Leases of 1.5 s: with 400 ms, a loaded host's stall before the check that the crashed slot is still held
    // outlasted its lease, or the survivor's renewal.
    const crashing = replica({ prefix, cap: 2, leaseMs: 1_500 });
    const survivor = replica({ prefix, cap: 2, leaseMs: 1_500 });
    expect(await take(crashing)).toBeDefined();
    // A turn of the same client on the survivor, renewed all along: the client's set stays alive.
    expect(await take(survivor)).toBeDefined();
    // Its renewals stop and its connection goes, its slot never given back: what a crash leaves in Redis.
    await crashing.close();
    const stoppedAt = Date.now();
    expect(await take(survivor)).toBeUndefined();

    let taken: TurnSlot | undefined;
    await expect.poll(async () => (taken ??= await take(survivor)), { timeout: 5_000, interval: 50 }).toBeDefined();
    // Freed by its lease running out, not by the close: half the lease, whatever a stall took of it before the close.
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(750);
    expect(await take(survivor), 'only the crashed slot came free').toBeUndefined();
  });

  it("keep a long turn's slot past many lease lifetimes by renewing it, and the set's expiry with it", async () => {
    const prefix = prefixed();
    // A lease long enough that a busy host's stalls (this process paused past a 300 ms lease's renewal and the
    // rest of it) do not let it lapse, as in context-lanes.test.ts.
    const holder = replica({ prefix, leaseMs: 1_500 });
    const other = replica({ prefix, leaseMs: 1_500 });
    const slot = await take(holder);
    // Time passing is what is tested: over two lease lifetimes.
    await sleep(3_200);
    expect(await take(other)).toBeUndefined();
    expect(await admin.pttl(slotsKey(prefix))).toBeGreaterThan(0);
    slot!.release();
    await expect.poll(() => admin.exists(slotsKey(prefix))).toBe(0);
  });

  it('escape client keys, so a name cannot reach outside the slots namespace', async () => {
    const prefix = prefixed();
    const slots = replica({ prefix });
    await take(slots, caller('p:x', 'a:b'));
    expect(await admin.keys(`${prefix}*`)).toEqual([`${prefix}turns:name%00a%3Ab`]);
  });
});

/** A TCP server that takes connections and never answers: a Redis that hangs. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('redis turn slots when Redis does not answer', () => {
  const warnings: string[] = [];
  /** The connection's own warnings (watchRedis), apart from the slots'. */
  const connectionWarnings: string[] = [];
  const logger = {
    warn: (fields: object, message: string) => void ('store' in fields ? connectionWarnings : warnings).push(message),
  };
  afterEach(() => {
    warnings.splice(0);
    connectionWarnings.splice(0);
  });

  it('refuse the turn (fail closed, -32603) within the bound when Redis hangs, and warn once for many turns', async () => {
    const silent = await silentServer();
    try {
      const slots = replica({ prefix: prefixed(), url: silent.url, answerWithinMs: 200, logger });
      const started = Date.now();
      const refusals = await Promise.all([1, 2, 3].map(() => rejection(Promise.resolve(slots.take(caller())))));
      // Within the 200 ms bound, not whenever the silent Redis would answer (never): a busy host stays well inside 5 s.
      expect(Date.now() - started).toBeLessThan(5_000);
      for (const refusal of refusals) {
        expect(refusal).toBeInstanceOf(A2AError);
        expect(refusal.code).toBe(ErrorCode.Internal);
        expect(refusal.message).toBe('The gateway cannot take new requests right now. Please try again in a moment.');
      }
      expect(await rejection(Promise.resolve(slots.take(caller())))).toBeInstanceOf(A2AError);
      expect(warnings).toHaveLength(1);
      await slots.close();
    } finally {
      await silent.close();
    }
  });

  it('refuse turns while Redis is down, and count them again once it is back', async () => {
    const redis = await ownRedis();
    try {
      const prefix = prefixed();
      // A second, not 300 ms: the first take (a fresh connection, its script loaded) goes through the same bound, and a
      // loaded host's stall there refused it before Redis was stopped.
      const slots = replica({ prefix, url: redis.url, answerWithinMs: 1_000, logger });
      const held = await take(slots);
      expect(held).toBeDefined();
      await redis.stop();
      expect((await rejection(Promise.resolve(slots.take(caller('p:bob'))))).code).toBe(ErrorCode.Internal);
      // Giving a slot back fails too: it would expire; the warning is not repeated within the minute.
      held!.release();
      await sleep(1_200);
      expect(warnings).toHaveLength(1);
      // The connection failing is told once too, naming the store and where it connects.
      expect(connectionWarnings).toEqual([expect.stringMatching(/^Redis connection of the turn-slots store failed \(127\.0\.0\.1:\d+\): /)]);

      await redis.start();
      const outcome = () =>
        take(slots, caller('p:bob')).then(
          (slot) => (slot ? 'taken' : 'at the cap'),
          () => 'refused',
        );
      await expect.poll(outcome, { timeout: 10_000, interval: 100 }).toBe('taken');
      expect(await outcome()).toBe('at the cap');
    } finally {
      await redis.stop();
    }
  });
});

describe('createTurnSlotsFor', () => {
  it('counts through Redis with store: redis (with the lanes lease), in process otherwise; nothing without a cap', async () => {
    const prefix = prefixed();
    const limits = { 'turns-in-flight-per-client': 1 };
    const config = defaultConfig({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix, limits });
    const [a, b] = [createTurnSlotsFor(config)!, createTurnSlotsFor(config)!];
    opened.push(a, b);
    const taking = a.take(caller());
    expect(taking).toBeInstanceOf(Promise);
    expect(await taking).toBeDefined();
    expect(await take(b)).toBeUndefined();
    const ttl = await admin.pttl(slotsKey(prefix));
    expect(ttl).toBeGreaterThan(20_000);
    expect(ttl).toBeLessThanOrEqual(config.tasks['lane-lease-ms']);

    const [memoryA, memoryB] = [createTurnSlotsFor(defaultConfig({ limits }))!, createTurnSlotsFor(defaultConfig({ limits }))!];
    const local = memoryA.take(caller());
    expect(local).not.toBeInstanceOf(Promise);
    expect(local).toBeDefined();
    expect(memoryB.take(caller())).toBeDefined();

    expect(createTurnSlotsFor(defaultConfig({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix }))).toBeUndefined();
  });
});

/**
 * The Redis follow journal against a real Redis: replicas with their own ids and connections, leases
 * that lapse when a replica's connection is cut (as when it dies), and claims that never overlap.
 */
import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FollowEntry } from '../../src/push/follow-journal.js';
import { createRedisFollowJournal, redisFollowKeys, type RedisFollowJournal } from '../../src/push/follow-journal-redis.js';
import { startFreezingRedis } from '../support/freezing-redis.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { waitUntil } from '../support/wait-until.js';

beforeAll(requireRedis);

const RUN = `a2a-bridge-test:follow-journal:${randomUUID()}:`;
const cleanup: Array<() => Promise<unknown>> = [];
let admin: Redis;

beforeAll(() => {
  admin = new Redis(REDIS_URL);
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
afterAll(async () => {
  const keys = await admin.keys(`${RUN}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

const warnings: string[] = [];
const logger = { info() {}, warn: (_fields: object, message: string) => void warnings.push(message), error() {} };

/** A replica's journal on a connection of its own, so the test can cut it as a crash would. */
function replica(
  prefix: string,
  replicaId: string,
  leaseMs: number,
  url = REDIS_URL,
  options: RedisOptions = {},
): { journal: RedisFollowJournal; connection: Redis } {
  const connection = new Redis(url, options);
  connection.on('error', () => undefined);
  const journal = createRedisFollowJournal({ redis: connection, prefix, leaseMs, replicaId, logger });
  cleanup.push(async () => {
    await journal.close();
    if (connection.status === 'ready') await connection.quit();
    else connection.disconnect();
  });
  return { journal, connection };
}

const entry = (taskId: string, inMs = 60_000): FollowEntry => ({ taskId, principal: 'basic:alice', surface: 'jsonrpc', until: Date.now() + inMs });
const byTask = (entries: FollowEntry[]) => [...entries].sort((a, b) => a.taskId.localeCompare(b.taskId));
const prefixOfTest = () => `${RUN}${randomUUID()}:`;

/** What a crash leaves: no more renewals (the connection is gone), and the lease runs out on its own. */
async function crash(prefix: string, victim: { journal: RedisFollowJournal; connection: Redis }): Promise<void> {
  victim.connection.disconnect();
  await waitUntil(async () => (await admin.exists(redisFollowKeys(prefix).lease(victim.journal.replicaId))) === 0);
}

describe('the Redis follow journal', () => {
  it("keeps a live replica's follows its own, and hands them to another exactly once after its lease lapsed", async () => {
    const prefix = prefixOfTest();
    const a = replica(prefix, 'A', 300);
    const b = replica(prefix, 'B', 300);
    // A follow of a tenant's task keeps its tenant, taken over with it.
    const added = [entry('T1'), { ...entry('T2'), tenant: 'acme' }, entry('T3')];
    for (const follow of added) await a.journal.add(follow);
    await a.journal.remove('T3');

    // Longer than the lease: A renews it, so nothing of A's is an orphan.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await b.journal.claimOrphans(100)).toEqual([]);
    expect(byTask(await a.journal.entries())).toEqual(added.slice(0, 2));

    await crash(prefix, a);
    expect(byTask(await b.journal.claimOrphans(100))).toEqual(added.slice(0, 2));
    expect(await b.journal.claimOrphans(100)).toEqual([]);
    // Now B's: in B's hash, under B in the owners set, and A is forgotten.
    const keys = redisFollowKeys(prefix);
    expect(byTask(await b.journal.entries())).toEqual(added.slice(0, 2));
    expect(await admin.exists(keys.follows('A'))).toBe(0);
    expect(await admin.smembers(keys.owners)).toEqual(['B']);
  });

  it('two replicas claiming at once take disjoint sets that together are every follow', async () => {
    const prefix = prefixOfTest();
    const a = replica(prefix, 'A', 300);
    const b = replica(prefix, 'B', 300);
    const c = replica(prefix, 'C', 300);
    // More than either can take alone (12 claims of 5), so both must take part; all claims are sent at once.
    const added = Array.from({ length: 100 }, (_, index) => entry(`T${String(index).padStart(3, '0')}`));
    await Promise.all(added.map((follow) => a.journal.add(follow)));
    await crash(prefix, a);

    const rounds = await Promise.all(Array.from({ length: 12 }, () => [b.journal.claimOrphans(5), c.journal.claimOrphans(5)]).flat());
    const ofB = rounds.filter((_, index) => index % 2 === 0).flat();
    const ofC = rounds.filter((_, index) => index % 2 === 1).flat();
    expect(ofB.length).toBeGreaterThanOrEqual(40);
    expect(ofC.length).toBeGreaterThanOrEqual(40);
    const taken = [...ofB, ...ofC].map((follow) => follow.taskId);
    expect(new Set(taken).size).toBe(taken.length);
    expect(byTask([...ofB, ...ofC])).toEqual(added);
    // Each claim is recorded as its claimer's.
    expect(byTask(await b.journal.entries())).toEqual(byTask(ofB));
    expect(byTask(await c.journal.entries())).toEqual(byTask(ofC));
  });

  it("claims at most the limit, leaving the rest for the next round, and drops a follow past its 'until'", async () => {
    const prefix = prefixOfTest();
    const a = replica(prefix, 'A', 300);
    const b = replica(prefix, 'B', 300);
    const live = [entry('L1'), entry('L2'), entry('L3')];
    await a.journal.add(entry('OLD', 100));
    for (const follow of live) await a.journal.add(follow);
    await crash(prefix, a);

    const first = await b.journal.claimOrphans(2);
    expect(first).toHaveLength(2);
    const second = await b.journal.claimOrphans(2);
    expect(byTask([...first, ...second])).toEqual(live);
    // The old one was deleted, not handed over.
    expect(await admin.exists(redisFollowKeys(prefix).follows('A'))).toBe(0);
    expect((await b.journal.entries()).map((follow) => follow.taskId)).not.toContain('OLD');
  });

  it('a graceful stop keeps the follows and deletes the lease: another replica claims them at once', async () => {
    const prefix = prefixOfTest();
    const a = replica(prefix, 'A', 60_000);
    const b = replica(prefix, 'B', 60_000);
    await a.journal.add(entry('T1'));
    await a.journal.add(entry('T2'));
    expect(await b.journal.claimOrphans(100)).toEqual([]);

    const stoppedAt = Date.now();
    await a.journal.close();
    expect(await admin.exists(redisFollowKeys(prefix).lease('A'))).toBe(0);
    expect(byTask(await b.journal.claimOrphans(100)).map((follow) => follow.taskId)).toEqual(['T1', 'T2']);
    // Long before the minute the lease would have lasted (a sixth of it: a busy host does not reach that).
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  });

  it('warns when its own lease had lapsed, since its follows may then be followed twice', async () => {
    const prefix = prefixOfTest();
    const a = replica(prefix, 'A', 1_000);
    await waitUntil(async () => (await admin.exists(redisFollowKeys(prefix).lease('A'))) === 1);
    warnings.length = 0;
    await admin.del(redisFollowKeys(prefix).lease('A'));
    await waitUntil(async () => warnings.some((message) => message.includes('lease had lapsed')));
    expect(await admin.exists(redisFollowKeys(prefix).lease(a.journal.replicaId))).toBe(1);
  });

  it('a claim that timed out while Redis stalled, yet ran once Redis went on, hands what it took over at the next claim', async () => {
    const prefix = prefixOfTest();
    const a = replica(prefix, 'A', 60_000);
    await a.journal.add(entry('T1'));
    await a.journal.close();
    const stalling = await startFreezingRedis(REDIS_URL);
    cleanup.push(() => stalling.close());
    // A second, not 200 ms: B's reads before the freeze and its claims after the thaw go through the same bound, and
    // a loaded host's stall timed them out (the freeze, not the bound, is what this test holds).
    const b = replica(prefix, 'B', 60_000, stalling.url, { commandTimeout: 1_000 });
    await b.journal.held();

    // Frozen as B's claim goes out, past B's command timeout: B hears nothing, then Redis runs it.
    stalling.freezeAt(new RegExp(redisFollowKeys(prefix).lease('A')));
    await expect(b.journal.claimOrphans(100)).rejects.toThrow(/timed out/i);
    stalling.thaw();
    await waitUntil(async () => (await admin.hexists(redisFollowKeys(prefix).follows('B'), 'T1')) === 1);

    expect((await b.journal.claimOrphans(100)).map((follow) => follow.taskId)).toEqual(['T1']);
    // Once: a claim that was answered hands over only what it took.
    expect(await b.journal.claimOrphans(100)).toEqual([]);
  });

  it('a replica still running after its lease lapsed sees which follows are still its own', async () => {
    const prefix = prefixOfTest();
    const a = replica(prefix, 'A', 60_000);
    const b = replica(prefix, 'B', 60_000);
    await a.journal.add(entry('T1'));
    await a.journal.add(entry('T2'));
    expect([...(await a.journal.held())].sort()).toEqual(['T1', 'T2']);
    // A stalled past its lease (A itself still runs): B takes both over, and A's journal no longer holds them.
    await admin.del(redisFollowKeys(prefix).lease('A'));
    expect(byTask(await b.journal.claimOrphans(100)).map((follow) => follow.taskId)).toEqual(['T1', 'T2']);
    expect(await a.journal.held()).toEqual(new Set());
    expect(await b.journal.held()).toEqual(new Set(['T1', 'T2']));
  });
});

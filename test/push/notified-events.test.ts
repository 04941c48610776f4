/**
 * Claims of (config, stable event id): in memory (one replica), in a file across a restart, and in a
 * real Redis shared by replicas.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFileNotifiedEvents,
  createMemoryNotifiedEvents,
  createRedisNotifiedEvents,
  NOTIFIED_TTL_MS,
  redisNotifiedKey,
  type NotifiedEvents,
} from '../../src/push/notified-events.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { waitUntil } from '../support/wait-until.js';

const hook = { owner: 'basic:alice', taskId: 'T', id: 'hook' };
const EVENT = 'T:0123456789abcdef0123456789abcdef';
const OTHER_EVENT = 'T:fedcba9876543210fedcba9876543210';
const silent = { info() {}, warn() {}, error() {} };

/** What every implementation must do. */
async function claimsOnce(make: () => NotifiedEvents | Promise<NotifiedEvents>): Promise<void> {
  const notified = await make();
  expect(await notified.claim(hook, EVENT)).toBe(true);
  expect(await notified.claim(hook, EVENT)).toBe(false);
  // Another event, another config id, another owner with the same config id, another task: each its own claim.
  expect(await notified.claim(hook, OTHER_EVENT)).toBe(true);
  expect(await notified.claim({ ...hook, id: 'hook-2' }, EVENT)).toBe(true);
  expect(await notified.claim({ ...hook, owner: 'basic:bob' }, EVENT)).toBe(true);
  expect(await notified.claim({ ...hook, taskId: 'U' }, EVENT)).toBe(true);
  expect(await notified.claim({ ...hook, id: 'hook-2' }, EVENT)).toBe(false);
  // A claim given back (its job could not be queued) can be won again, and only that one.
  await notified.release(hook, EVENT);
  expect(await notified.claim(hook, EVENT)).toBe(true);
  expect(await notified.claim(hook, EVENT)).toBe(false);
  expect(await notified.claim(hook, OTHER_EVENT)).toBe(false);
}

describe('memory claims', () => {
  it('claims once per config and event', () => claimsOnce(() => createMemoryNotifiedEvents()));

  it('forgets a claim after its TTL, and the oldest beyond the bound', async () => {
    let now = 1_000;
    const notified = createMemoryNotifiedEvents({ ttlMs: 100, max: 2, now: () => now });
    expect(await notified.claim(hook, EVENT)).toBe(true);
    now += 99;
    expect(await notified.claim(hook, EVENT)).toBe(false);
    now += 1;
    expect(await notified.claim(hook, EVENT)).toBe(true);
    expect(await notified.claim(hook, 'T:b')).toBe(true);
    expect(await notified.claim(hook, 'T:c')).toBe(true);
    // Bound 2: the claim of EVENT, the oldest, is gone; the last two stay.
    expect(await notified.claim(hook, 'T:c')).toBe(false);
    expect(await notified.claim(hook, 'T:b')).toBe(false);
    expect(await notified.claim(hook, EVENT)).toBe(true);
  });
});

describe('file claims (one replica across a restart)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-notified-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('claims once per config and event', async () => {
    await claimsOnce(() => createFileNotifiedEvents(join(dir, 'a'), silent));
  });

  it('keeps the claims across a stop and start, and not those past their TTL', async () => {
    const state = join(dir, 'restart');
    let now = 5_000;
    const before = await createFileNotifiedEvents(state, silent, { ttlMs: 1_000, now: () => now });
    expect(await before.claim(hook, EVENT)).toBe(true);
    now += 600;
    expect(await before.claim(hook, OTHER_EVENT)).toBe(true);
    await before.close();
    expect(JSON.parse(await readFile(join(state, 'push_notified.json'), 'utf8'))).toHaveLength(2);

    const after = await createFileNotifiedEvents(state, silent, { ttlMs: 1_000, now: () => now });
    expect(await after.claim(hook, EVENT)).toBe(false);
    expect(await after.claim(hook, OTHER_EVENT)).toBe(false);
    expect(await after.claim({ ...hook, id: 'hook-2' }, EVENT)).toBe(true);
    await after.close();

    // 1 s after the first claim it has expired; the later ones are still kept.
    now += 400;
    const later = await createFileNotifiedEvents(state, silent, { ttlMs: 1_000, now: () => now });
    expect(await later.claim(hook, EVENT)).toBe(true);
    expect(await later.claim(hook, OTHER_EVENT)).toBe(false);
  });

  it('saves its claims soon after they are made, so a process that crashed (never closed) is followed by one that knows them', async () => {
    const state = join(dir, 'crash');
    const crashed = await createFileNotifiedEvents(state, silent, { saveEveryMs: 20 });
    expect(await crashed.claim(hook, EVENT)).toBe(true);
    expect(await crashed.claim(hook, OTHER_EVENT)).toBe(true);
    const saved = async () => JSON.parse(await readFile(join(state, 'push_notified.json'), 'utf8').catch(() => '[]')) as unknown[];
    // Claims alone are saved; so is a release.
    await waitUntil(async () => (await saved()).length === 2);
    await crashed.release(hook, OTHER_EVENT);
    await waitUntil(async () => (await saved()).length === 1);

    const next = await createFileNotifiedEvents(state, silent);
    expect(await next.claim(hook, EVENT)).toBe(false);
    // The released claim was saved as released.
    expect(await next.claim(hook, OTHER_EVENT)).toBe(true);
    await next.close();
  });

  it('starts empty, with a warning, from a file it cannot read', async () => {
    const state = join(dir, 'torn');
    await createFileNotifiedEvents(state, silent);
    await writeFile(join(state, 'push_notified.json'), '[["abc", 1');
    const warnings: string[] = [];
    const notified = await createFileNotifiedEvents(state, { ...silent, warn: (_fields: object, message: string) => void warnings.push(message) });
    expect(warnings).toHaveLength(1);
    expect(await notified.claim(hook, EVENT)).toBe(true);
  });
});

describe('Redis claims (replicas)', () => {
  const prefix = `a2a-bridge-test:notified:${randomUUID()}:`;
  let a: Redis;
  let b: Redis;
  beforeAll(async () => {
    await requireRedis();
    a = new Redis(REDIS_URL);
    b = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await a.keys(`${prefix}*`);
    if (keys.length > 0) await a.del(...keys);
    await a.quit();
    await b.quit();
  });

  it('claims once per config and event', () => claimsOnce(() => createRedisNotifiedEvents({ redis: a, prefix: `${prefix}once:` })));

  it('of two replicas claiming the same notification at once, exactly one wins; the key expires after the TTL', async () => {
    const own = `${prefix}race:`;
    const replicaA = createRedisNotifiedEvents({ redis: a, prefix: own });
    const replicaB = createRedisNotifiedEvents({ redis: b, prefix: own });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? replicaA : replicaB).claim(hook, EVENT)));
    expect(results.filter(Boolean)).toHaveLength(1);

    const key = redisNotifiedKey(own, hook, EVENT);
    expect(key.startsWith(`${own}push:notified:`)).toBe(true);
    const ttl = await a.pttl(key);
    expect(ttl).toBeGreaterThan(NOTIFIED_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(NOTIFIED_TTL_MS);
  });

  it('a short TTL: once the key has expired the notification can be claimed again', async () => {
    // A second, not 50 ms: a loaded host's stall between the first two claims outlasted a TTL that short.
    const notified = createRedisNotifiedEvents({ redis: a, prefix: `${prefix}short:`, ttlMs: 1_000 });
    expect(await notified.claim(hook, EVENT)).toBe(true);
    expect(await notified.claim(hook, EVENT)).toBe(false);
    await waitUntil(async () => (await a.exists(redisNotifiedKey(`${prefix}short:`, hook, EVENT))) === 0);
    expect(await notified.claim(hook, EVENT)).toBe(true);
  });
});

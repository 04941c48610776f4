import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileConfigStore } from '../../src/push/config-store/file.js';
import { createMemoryConfigStore } from '../../src/push/config-store/memory.js';
import { createRedisConfigStore } from '../../src/push/config-store/redis.js';
import type { PushConfigStore } from '../../src/push/config-store/types.js';
import { createKeyRing } from '../../src/push/secrets.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

beforeAll(requireRedis);

const keyRing = createKeyRing([`k:${randomBytes(32).toString('base64')}`]);
const options = { keyRing, maxConfigsPerTask: 3, allowPrivate: false };
const url = 'https://hooks.example.com/a2a';

let redis: Redis;
const prefix = `test-push-cfg-${process.pid}-${randomBytes(4).toString('hex')}:`;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const stores: Array<[string, () => PushConfigStore]> = [
  ['memory', () => createMemoryConfigStore(options)],
  ['redis', () => createRedisConfigStore({ ...options, redis, prefix })],
];

describe.each(stores)('%s push config store', (_name, make) => {
  it('creates, reads, lists and deletes; the id defaults to the task id', async () => {
    const store = make();
    const created = await store.create('alice', 'task-a', { url, token: 'tok', authentication: { scheme: 'bearer', credentials: 'cred' } });
    expect(created).toMatchObject({ owner: 'alice', taskId: 'task-a', id: 'task-a' });
    expect(created.config).toEqual({
      url,
      id: 'task-a',
      taskId: 'task-a',
      token: 'tok',
      authentication: { scheme: 'bearer', credentials: 'cred' },
    });
    expect((await store.get('alice', 'task-a', 'task-a'))?.config.token).toBe('tok');
    expect(await store.get('bob', 'task-a', 'task-a')).toBeUndefined();
    expect(await store.get('alice', 'task-a', 'other')).toBeUndefined();

    await store.create('alice', 'task-a', { id: 'task-a', url: `${url}/v2` });
    expect((await store.get('alice', 'task-a', 'task-a'))?.config).toEqual({ id: 'task-a', taskId: 'task-a', url: `${url}/v2` });

    expect(await store.delete('alice', 'task-a', 'task-a')).toBe(true);
    expect(await store.delete('alice', 'task-a', 'task-a')).toBe(false);
    expect((await store.list('alice', 'task-a')).configs).toEqual([]);
  });

  it('rejects bad ids, URLs and header-unsafe secrets with -32602', async () => {
    const store = make();
    expect((await rejection(store.create('o', 'bad task', { url }))).code).toBe(-32602);
    expect((await rejection(store.create('o', 'task-b', { id: 'a/b', url }))).code).toBe(-32602);
    expect((await rejection(store.create('o', 'task-b', { url: 'http://169.254.169.254/' }))).message).toBe(
      'A2A push callback URL must not target private or local hosts',
    );
    expect((await rejection(store.create('o', 'task-b', { url, token: 'a\r\nb' }))).message).toMatch(/control characters/);
    expect((await rejection(store.create('o', 'task-b', { url, authentication: { scheme: 'Bearer x', credentials: 'c' } }))).code).toBe(-32602);
    expect(await store.forTask('task-b')).toEqual([]);
  });

  it('caps configs per task; replacing an existing id is still allowed', async () => {
    const store = make();
    for (const id of ['c1', 'c2', 'c3']) await store.create('o', 'task-c', { id, url });
    const error = await rejection(store.create('o', 'task-c', { id: 'c4', url }));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/at most 3/);
    await expect(store.create('o', 'task-c', { id: 'c2', url: `${url}/new` })).resolves.toMatchObject({ id: 'c2' });
    await store.delete('o', 'task-c', 'c1');
    await expect(store.create('o', 'task-c', { id: 'c4', url })).resolves.toMatchObject({ id: 'c4' });
  });

  it('lists by id with opaque page tokens, scoped to the owner; forTask sees every owner', async () => {
    const store = make();
    for (const id of ['b', 'c', 'a']) await store.create('o', 'task-d', { id, url });
    const page1 = await store.list('o', 'task-d', { pageSize: 2 });
    expect(page1.configs.map((c) => c.id)).toEqual(['a', 'b']);
    expect(page1.nextPageToken).toBeTypeOf('string');
    const page2 = await store.list('o', 'task-d', { pageSize: 2, pageToken: page1.nextPageToken });
    expect(page2.configs.map((c) => c.id)).toEqual(['c']);
    expect(page2.nextPageToken).toBeUndefined();
    expect((await rejection(store.list('o', 'task-d', { pageToken: '!!not-a-token' }))).message).toBe('Invalid page token');

    const other = make();
    await other.create('x', 'task-e', { id: 'mine', url });
    await other.create('y', 'task-e', { id: 'theirs', url });
    expect((await other.list('x', 'task-e')).configs.map((c) => c.id)).toEqual(['mine']);
    expect((await other.forTask('task-e')).map((c) => [c.owner, c.id])).toEqual([
      ['x', 'mine'],
      ['y', 'theirs'],
    ]);
    await other.deleteTask('task-e');
    expect(await other.forTask('task-e')).toEqual([]);
  });
});

describe('redis push config store at rest', () => {
  it('keeps secrets sealed in the raw hash value', async () => {
    const store = createRedisConfigStore({ ...options, redis, prefix });
    await store.create('alice', 'task-raw', {
      id: 'w1',
      url,
      token: 'plain-notification-token',
      authentication: { scheme: 'basic', credentials: 'user:plain-password' },
    });
    const raw = await redis.hgetall(`${prefix}push:configs:task-raw`);
    const values = Object.values(raw).join('\n');
    expect(values).toContain('hooks.example.com');
    expect(values).not.toContain('plain-notification-token');
    expect(values).not.toContain('plain-password');
    expect((await store.get('alice', 'task-raw', 'w1'))?.config.authentication?.credentials).toBe('user:plain-password');
  });

  it('enforces the cap atomically under concurrent creates', async () => {
    const store = createRedisConfigStore({ ...options, redis, prefix });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.create('o', 'task-race', { id: `r${i}`, url })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await redis.hlen(`${prefix}push:configs:task-race`)).toBe(3);
  });
});

describe('deleting the configs of an evicted task', () => {
  it("file store: drops only that task's configs, on disk too", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-cfg-file-'));
    try {
      const store = await createFileConfigStore({ ...options, dir });
      await store.create('alice', 'gone', { id: 'a', url });
      await store.create('bob', 'gone', { id: 'b', url });
      await store.create('alice', 'kept', { id: 'k', url });
      await store.deleteTask('gone');
      await store.deleteTask('never-had-configs');
      expect(await store.forTask('gone')).toEqual([]);
      // Restarted from the journal: a line forgets each of the task's configs, no snapshot was rewritten.
      const journal = (await readFile(join(dir, 'push_configs.jsonl'), 'utf8')).split('\n').filter(Boolean);
      expect(journal.filter((line) => line.includes('"forget":true'))).toHaveLength(2);
      const reopened = await createFileConfigStore({ ...options, dir });
      expect((await reopened.forTask('kept')).map((entry) => entry.id)).toEqual(['k']);
      expect(await reopened.forTask('gone')).toEqual([]);
      // Closed, the store folds them into the snapshot the release before reads.
      await store.close();
      const onDisk = JSON.parse(await readFile(join(dir, 'push_configs.json'), 'utf8')) as Array<{ taskId: string }>;
      expect(onDisk.map((entry) => entry.taskId)).toEqual(['kept']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('file store: a config stored before the 4 KiB bound on secrets is restored as it is, not dropped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-cfg-file-'));
    try {
      const token = 't'.repeat(5_000);
      const store = await createFileConfigStore({ ...options, dir });
      await store.create('alice', 'older', { id: 'big', url, token });
      const reopened = await createFileConfigStore({ ...options, dir });
      expect((await reopened.forTask('older')).map((entry) => entry.config.token)).toEqual([token]);
      await reopened.create('alice', 'other', { id: 'o', url });
      const again = await createFileConfigStore({ ...options, dir });
      expect((await again.forTask('older')).map((entry) => entry.id)).toEqual(['big']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("redis store: a ttlMs gives the task's configs a TTL, none without it", async () => {
    const withTtl = createRedisConfigStore({ ...options, redis, prefix, ttlMs: 60_000 });
    await withTtl.create('o', 'task-ttl', { id: 'c', url });
    const ttl = await redis.pttl(`${prefix}push:configs:task-ttl`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await createRedisConfigStore({ ...options, redis, prefix }).create('o', 'task-no-ttl', { id: 'c', url });
    expect(await redis.pttl(`${prefix}push:configs:task-no-ttl`)).toBe(-1);
  });
});

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTaskRegistry } from '../../src/core/task-registry/index.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { defaultConfig } from '../../src/config/schema.js';
import { registryContract, taskOf } from './registry-contract.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN_PREFIX = `a2a-bridge-test:${randomUUID()}:`;

registryContract('memory', async ({ historyLimit, idleTtlMs }) => {
  const registry = createMemoryTaskRegistry({ maxTasks: 10_000, idleTtlMs, historyLimit });
  return { registry, replica: () => registry, cleanup: () => registry.close() };
});

const clients: Redis[] = [];
registryContract('redis', async ({ historyLimit, idleTtlMs }) => {
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const redis = new Redis(REDIS_URL);
  clients.push(redis);
  const registry = createRedisTaskRegistry({ redis, prefix, idleTtlMs, historyLimit });
  const replicas = [createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs, historyLimit })];
  return {
    registry,
    replica: () => replicas[0]!,
    cleanup: async () => {
      await registry.close();
      for (const replica of replicas) await replica.close();
    },
  };
});

afterAll(async () => {
  const redis = clients[0] ?? new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${RUN_PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  expect((await redis.scan('0', 'MATCH', `${RUN_PREFIX}*`, 'COUNT', 1000))[1]).toEqual([]);
  await Promise.all((clients.length > 0 ? clients : [redis]).map((client) => client.quit()));
});

describe('memory registry bounds', () => {
  it('evicts the least recently used task beyond maxTasks and keeps its indexes consistent', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 3, idleTtlMs: 60_000, historyLimit: 10 });
    await registry.put(taskOf('t1', { contextId: 'ctx-a', timestamp: '2026-01-01T00:00:01Z' }), { owner: 'o', upstream: 'u' });
    await registry.put(taskOf('t2', { contextId: 'ctx-b', timestamp: '2026-01-01T00:00:02Z' }), { owner: 'o', upstream: 'u' });
    await registry.put(taskOf('t3', { contextId: 'ctx-b', timestamp: '2026-01-01T00:00:03Z' }), { owner: 'o', upstream: 'u' });
    await registry.put(taskOf('t4', { contextId: 'ctx-b', timestamp: '2026-01-01T00:00:04Z' }), { owner: 'o', upstream: 'u' });
    expect(await registry.get('t1', 'o')).toBeUndefined();
    expect(await registry.ownerOf('t1')).toBeUndefined();
    expect(await registry.contextOwner('ctx-a')).toBeUndefined();
    expect(await registry.latestForContext('ctx-a', 'o')).toBeUndefined();
    const listed = await registry.list({}, 'o');
    expect(listed.tasks.map((t) => t.id)).toEqual(['t4', 't3', 't2']);
    expect(listed.totalSize).toBe(3);
    expect((await registry.list({ contextId: 'ctx-a' }, 'o')).totalSize).toBe(0);
    await registry.close();
  });
});

describe('createTaskRegistry', () => {
  it('chooses the store from the config', async () => {
    const memory = createTaskRegistry(defaultConfig());
    await memory.put(taskOf('m1'), { owner: '', upstream: 'u' });
    expect(await memory.get('m1', '')).toBeDefined();
    await memory.close();

    const prefix = `${RUN_PREFIX}config:`;
    const redis = createTaskRegistry(defaultConfig({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix }));
    await redis.put(taskOf('r1'), { owner: '', upstream: 'u' });
    const probe = new Redis(REDIS_URL);
    expect(await probe.exists(`${prefix}t:r1`)).toBe(1);
    await probe.quit();
    await redis.close();
  });
});

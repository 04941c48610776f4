import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, beforeAll } from 'vitest';
import { createTaskRegistry } from '../../src/core/task-registry/index.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { taskBytes } from '../../src/core/task-registry/task-bytes.js';
import type { Message } from '../../src/model/index.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { defaultConfig } from '../../src/config/schema.js';
import { registryContract, taskOf } from './registry-contract.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:${randomUUID()}:`;

registryContract('memory', async ({ historyLimit, idleTtlMs, contextOwnerTtlMs }) => {
  const registry = createMemoryTaskRegistry({ maxTasks: 10_000, idleTtlMs, contextOwnerTtlMs, historyLimit });
  return { registry, replica: () => registry, cleanup: () => registry.close() };
});

const clients: Redis[] = [];
registryContract('redis', async ({ historyLimit, idleTtlMs, contextOwnerTtlMs }) => {
  const prefix = `${RUN_PREFIX}${randomUUID()}:`;
  const redis = new Redis(REDIS_URL);
  clients.push(redis);
  const registry = createRedisTaskRegistry({ redis, prefix, idleTtlMs, contextOwnerTtlMs, historyLimit });
  const replicas = [createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs, contextOwnerTtlMs, historyLimit })];
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
    // The context's owner outlives its evicted task: the agent may still hold the conversation.
    expect(await registry.contextOwner('ctx-a')).toBe('o');
    expect((await registry.latestInContext('ctx-a', 'o'))?.task).toBeUndefined();
    const listed = await registry.list({}, 'o');
    expect(listed.tasks.map((t) => t.id)).toEqual(['t4', 't3', 't2']);
    expect(listed.totalSize).toBe(3);
    expect((await registry.list({ contextId: 'ctx-a' }, 'o')).totalSize).toBe(0);
    await registry.close();
  });
});

describe('memory registry context owners', () => {
  it('keeps the owners of at least 1,000 contexts past their tasks, then forgets the least recently used', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 1, idleTtlMs: 60_000, historyLimit: 10 });
    for (let i = 0; i < 1_000; i++) await registry.put(taskOf(`t${i}`, { contextId: `ctx-${i}` }), { owner: `o${i % 2}`, upstream: 'u' });
    expect(await registry.ownerOf('t0')).toBeUndefined();
    expect(await registry.contextOwner('ctx-0')).toBe('o0');
    expect(await registry.contextOwner('ctx-1')).toBe('o1');
    await registry.put(taskOf('t1000', { contextId: 'ctx-1000' }), { owner: 'o0', upstream: 'u' });
    // ctx-0 was read last above, so ctx-2 is now the least recently used and the one to go.
    expect(await registry.contextOwner('ctx-2')).toBeUndefined();
    expect(await registry.contextOwner('ctx-0')).toBe('o0');
    await registry.close();
  });
});

/** A history of `count` agent messages of `chars` characters each, as a long iac-code turn leaves. */
const history = (count: number, chars: number, fill = 'x'): Message[] =>
  Array.from({ length: count }, (_, i) => ({ messageId: `m${i}`, role: 'ROLE_AGENT', parts: [{ text: fill.repeat(chars) }] }));

describe('memory registry byte budget (maxBytes)', () => {
  it('evicts the least recently used tasks once their estimated size passes the budget, and reports them', async () => {
    const big = taskBytes(taskOf('probe', { history: history(20, 5_000) }));
    const registry = createMemoryTaskRegistry({ maxTasks: 1_000, maxBytes: Math.floor(big * 2.5), idleTtlMs: 0, historyLimit: 200 });
    const evicted: string[] = [];
    registry.onEvicted((taskId) => evicted.push(taskId));
    const meta = { owner: 'o', upstream: 'u' };
    for (const id of ['t1', 't2']) await registry.put(taskOf(id, { contextId: id, history: history(20, 5_000) }), meta);
    expect(evicted).toEqual([]);
    await registry.put(taskOf('t3', { contextId: 't3', history: history(20, 5_000) }), meta);
    expect(evicted).toEqual(['t1']);
    expect(await registry.ownerOf('t1')).toBeUndefined();
    expect(await registry.contextOwner('t1')).toBe('o');
    expect((await registry.list({}, 'o')).tasks.map((t) => t.id)).toEqual(['t3', 't2']);
    // Small tasks fit many to the budget: the count bound is not reached, nothing more goes.
    for (let i = 0; i < 50; i++) await registry.put(taskOf(`small-${i}`), meta);
    expect(evicted).toEqual(['t1']);
    await registry.close();
  });

  it('grows a task in place without evicting it, and keeps one task larger than the whole budget, alone', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 1_000, maxBytes: 50_000, idleTtlMs: 0, historyLimit: 200 });
    const evicted: string[] = [];
    registry.onEvicted((taskId) => evicted.push(taskId));
    const meta = { owner: 'o', upstream: 'u' };
    await registry.put(taskOf('a'), meta);
    await registry.put(taskOf('growing', { history: history(1, 1_000) }), meta);
    await registry.put(taskOf('growing', { history: history(10, 1_000) }), meta);
    expect(evicted).toEqual([]);
    await registry.put(taskOf('huge', { history: history(10, 10_000) }), meta);
    expect(evicted.sort()).toEqual(['a', 'growing']);
    expect((await registry.get('huge', 'o'))?.history).toHaveLength(10);
    await registry.close();
  });

  it('defaults to a quarter of the V8 heap limit with store: memory', async () => {
    const { getHeapStatistics } = await import('node:v8');
    const { defaultMaxBytes } = await import('../../src/core/task-registry/index.js');
    expect(defaultMaxBytes()).toBe(Math.floor(getHeapStatistics().heap_size_limit / 4));
    expect(defaultConfig({}).tasks['max-bytes']).toBeUndefined();
  });

  it('takes tasks.max-bytes from the config', async () => {
    const registry = createTaskRegistry(defaultConfig({ tasks: { 'max-bytes': 30_000 } }));
    const meta = { owner: 'o', upstream: 'u' };
    await registry.put(taskOf('first', { history: history(5, 1_000) }), meta);
    await registry.put(taskOf('second', { history: history(5, 1_000) }), meta);
    await registry.put(taskOf('third', { history: history(5, 1_000) }), meta);
    // About 11 KB each: the third does not fit beside the first two, the least recently used goes.
    expect(await registry.ownerOf('first')).toBeUndefined();
    expect(await registry.ownerOf('second')).toBe('o');
    expect(await registry.ownerOf('third')).toBe('o');
    await registry.close();
  });
});

describe('taskBytes', () => {
  it('grows with the text a task holds, two bytes a character, and with its parts and messages', () => {
    const empty = taskBytes(taskOf('t'));
    const ascii = taskBytes(taskOf('t', { history: history(10, 1_000) }));
    const chinese = taskBytes(taskOf('t', { history: history(10, 1_000, '云') }));
    expect(ascii - empty).toBeGreaterThanOrEqual(20_000);
    expect(ascii - empty).toBeLessThan(25_000);
    expect(chinese).toBe(ascii);
    expect(taskBytes(taskOf('t', { history: history(20, 0) }))).toBeGreaterThan(taskBytes(taskOf('t', { history: history(10, 0) })) + 10 * 64);
  });

  it('is not below what V8 really keeps for such tasks, nor far above it', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = Array.from({ length: 2_000 }, (_, i) => taskOf(`t${i}`, { history: history(20, 200 + (i % 50)) }));
    gc();
    const real = (process.memoryUsage().heapUsed - before) / kept.length;
    const estimated = kept.reduce((sum, task) => sum + taskBytes(task), 0) / kept.length;
    expect(estimated).toBeGreaterThan(real);
    expect(estimated).toBeLessThan(3 * real);
  });
});

describe('memory registry evictions', () => {
  it('reports tasks dropped beyond maxTasks or after the idle TTL, not replaced or closed ones', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 2, idleTtlMs: 60_000, historyLimit: 10 });
    const evicted: string[] = [];
    const unfollow = registry.onEvicted((taskId) => evicted.push(taskId));
    const meta = { owner: 'o', upstream: 'u' };
    await registry.put(taskOf('t1'), meta);
    await registry.put(taskOf('t1', { state: 'TASK_STATE_COMPLETED' }), meta);
    await registry.put(taskOf('t2'), meta);
    expect(evicted).toEqual([]);
    await registry.put(taskOf('t3'), meta);
    expect(evicted).toEqual(['t1']);
    unfollow();
    await registry.put(taskOf('t4'), meta);
    expect(evicted).toEqual(['t1']);
    registry.onEvicted((taskId) => evicted.push(taskId));
    await registry.close();
    expect(evicted).toEqual(['t1']);
  });

  it('reports an expired task when it is next touched, through a read or a listing', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 40, historyLimit: 10 });
    const evicted: string[] = [];
    registry.onEvicted((taskId) => {
      evicted.push(taskId);
      throw new Error('a failing listener must not break the registry');
    });
    await registry.put(taskOf('read', { contextId: 'c1' }), { owner: 'o', upstream: 'u' });
    await registry.put(taskOf('listed', { contextId: 'c2' }), { owner: 'o', upstream: 'u' });
    await expect.poll(() => registry.get('read', 'o'), { interval: 20 }).toBeUndefined();
    expect(evicted).toEqual(['read']);
    expect((await registry.list({ contextId: 'c2' }, 'o')).tasks).toEqual([]);
    expect(evicted).toEqual(['read', 'listed']);
    await registry.close();
  });
});

describe('redis registry: keys that expire with their task', () => {
  it('gives linked keys the idle TTL on every write of their task, and only theirs', async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 10 });
    const probe = new Redis(REDIS_URL);
    try {
      await probe.set(`${prefix}linked:T`, 'x');
      await probe.set(`${prefix}linked:U`, 'x');
      await registry.put(taskOf('T'), { owner: 'o', upstream: 'u' });
      expect(await probe.pttl(`${prefix}linked:T`)).toBe(-1);

      registry.expireWithTasks(`${prefix}linked:`);
      registry.expireWithTasks(`${prefix}linked:`);
      await registry.apply(
        { statusUpdate: { taskId: 'T', contextId: 'ctx-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } },
        { owner: 'o', upstream: 'u' },
      );
      expect(await probe.pttl(`${prefix}linked:T`)).toBeGreaterThan(50_000);
      expect(await probe.pttl(`${prefix}linked:U`)).toBe(-1);

      // Time passes (the TTL is cut short), then the task is written again: the key is renewed with it.
      await probe.pexpire(`${prefix}linked:T`, 5_000);
      await registry.put(taskOf('T', { state: 'TASK_STATE_COMPLETED' }), { owner: 'o', upstream: 'u' });
      expect(await probe.pttl(`${prefix}linked:T`)).toBeGreaterThan(50_000);
      expect(await registry.get('T', 'o')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    } finally {
      await registry.close();
      await probe.quit();
    }
  });

  it('lets a linked key expire together with an idle task', async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 200, historyLimit: 10 });
    const probe = new Redis(REDIS_URL);
    try {
      registry.expireWithTasks(`${prefix}linked:`);
      await probe.set(`${prefix}linked:T`, 'x');
      await registry.put(taskOf('T'), { owner: 'o', upstream: 'u' });
      await expect.poll(() => probe.exists(`${prefix}t:T`, `${prefix}linked:T`), { interval: 25 }).toBe(0);
    } finally {
      await registry.close();
      await probe.quit();
    }
  });
});

describe("redis registry: a context's latest task", () => {
  it('is read from one pointer per context, not from every task of it; without the pointer the tasks are searched', async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 10 });
    const probe = new Redis(REDIS_URL);
    const owner = { owner: 'o', upstream: 'u' };
    try {
      for (let turn = 0; turn < 30; turn++) await registry.put(taskOf(`T${turn}`), owner);
      await registry.apply({ statusUpdate: { taskId: 'T7', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } }, owner);
      expect(await probe.get(`${prefix}o:o:l:ctx-1`)).toBe('T7');
      expect(await probe.pttl(`${prefix}o:o:l:ctx-1`)).toBeGreaterThan(50_000);
      // The context's index is not what answers (emptied here, the pointer still does).
      const index = await probe.zrange(`${prefix}o:o:c:ctx-1`, 0, -1);
      await probe.del(`${prefix}o:o:c:ctx-1`);
      expect((await registry.latestInContext('ctx-1', 'o'))?.task?.id).toBe('T7');
      expect((await registry.latestInContext('ctx-1', 'someone-else'))?.task).toBeUndefined();
      // Written before the pointer existed: the context's tasks are searched, as before.
      await probe.zadd(`${prefix}o:o:c:ctx-1`, ...index.flatMap((member) => [0, member]));
      await probe.del(`${prefix}o:o:l:ctx-1`);
      expect((await registry.latestInContext('ctx-1', 'o'))?.task?.id).toBe('T7');
    } finally {
      await registry.close();
      await probe.quit();
    }
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

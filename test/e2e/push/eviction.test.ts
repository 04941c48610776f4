/** Push configs go with their task: deleted when the memory registry drops it, expiring with it in Redis. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { createMemoryTaskRegistry } from '../../../src/core/task-registry/memory.js';
import { createRedisTaskRegistry } from '../../../src/core/task-registry/redis.js';
import type { TaskRegistry } from '../../../src/core/task-registry/types.js';
import { createLogger } from '../../../src/log.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import type { Task } from '../../../src/model/index.js';
import { createPushService } from '../../../src/push/service.js';
import { stubUpstream } from '../../support/gateway-stubs.js';
import { ctx } from './harness.js';
import { keptConfigs } from '../../support/push-state-files.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

const RUN_PREFIX = `a2a-bridge-test:push-evict:${randomUUID()}:`;
const ALICE = ctx('basic:alice');
const META = { owner: ALICE.principal, upstream: 'up' };
const hook = 'http://127.0.0.1:9/hook';
const profile = loadMappingProfile('a2a-0.2.5');
const logger = createLogger('silent');

let redis: Redis;
let dir: string;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  const keys = await redis.keys(`${RUN_PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const task = (id: string, state: Task['status']['state'] = 'TASK_STATE_WORKING'): Task => ({ id, contextId: 'ctx', status: { state } });

async function pushOver(registry: TaskRegistry, overrides: Record<string, unknown>) {
  dir = await mkdtemp(join(tmpdir(), 'push-evict-'));
  const config = defaultConfig({ 'push-notifications': true, 'push-allow-private': true, 'persistence-dir': dir, ...overrides });
  const service = await createPushService(config, { registry, logger, profile, redis });
  service.start();
  closers.push(
    () => rm(dir, { recursive: true, force: true }),
    () => registry.close(),
    () => service.stop(),
  );
  // No gateway in front: nothing queues registry writes, so there is nothing to wait for.
  return service.decorate(Object.assign(stubUpstream({}), { settled: async () => undefined }));
}

describe('push configs of evicted tasks', () => {
  it('memory registry + file store: deletes the configs of a task evicted beyond max-tasks, on disk too', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 2, idleTtlMs: 60_000, historyLimit: 10 });
    const port = await pushOver(registry, {});
    for (const id of ['T1', 'T2']) {
      await registry.put(task(id), META);
      await port.createTaskPushNotificationConfig({ taskId: id, id: 'w', url: hook }, ALICE);
    }
    const savedTasks = async () => (await keptConfigs(dir)).map((e) => e.taskId);
    expect((await savedTasks()).sort()).toEqual(['T1', 'T2']);

    await registry.put(task('T3'), META); // evicts T1
    await expect.poll(savedTasks).toEqual(['T2']);
    // The same task id, known again, starts without the old callback.
    await registry.put(task('T1'), META);
    expect((await port.listTaskPushNotificationConfigs({ taskId: 'T1' }, ALICE)).configs).toEqual([]);
  });

  it('memory registry + Redis store: deletes the configs of a task that expired', async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    // Long enough for the config to be seen stored first on a loaded host (at 50 ms the task expired before that, now and then).
    const registry = createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 500, historyLimit: 10 });
    const port = await pushOver(registry, { store: 'redis', 'redis-prefix': prefix });
    await registry.put(task('T1'), META);
    await port.createTaskPushNotificationConfig({ taskId: 'T1', id: 'w', url: hook }, ALICE);
    expect(await redis.exists(`${prefix}push:configs:T1`)).toBe(1);
    // Expiry is noticed when the task is next touched.
    await expect.poll(() => registry.get('T1', META.owner), { interval: 20, timeout: 5_000 }).toBeUndefined();
    await expect.poll(() => redis.exists(`${prefix}push:configs:T1`), { timeout: 5_000 }).toBe(0);
  });

  it("redis registry + store: configs take the task's idle TTL, renewed by every write of the task", async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 10 });
    const port = await pushOver(registry, { store: 'redis', 'redis-prefix': prefix, tasks: { 'idle-ttl-ms': 60_000 } });
    const configKey = `${prefix}push:configs:T1`;
    await registry.put(task('T1'), META);
    await port.createTaskPushNotificationConfig({ taskId: 'T1', id: 'w', url: hook }, ALICE);
    expect(await redis.pttl(configKey)).toBeGreaterThan(50_000);

    await redis.pexpire(configKey, 5_000); // as if most of the TTL had passed
    await registry.apply({ statusUpdate: { taskId: 'T1', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED' } } }, META);
    expect(await redis.pttl(configKey)).toBeGreaterThan(50_000);
  });

  it('redis registry + store: configs outlive their own TTL while the task is written, and expire with it', async () => {
    const prefix = `${RUN_PREFIX}${randomUUID()}:`;
    // A TTL of a second, written every 250 ms: with 300 ms written every 100 ms, a loaded host's stall between two
    // writes outlasted the TTL's rest and the config expired while its task was still being written.
    const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix, idleTtlMs: 1_000, historyLimit: 10 });
    const port = await pushOver(registry, { store: 'redis', 'redis-prefix': prefix, tasks: { 'idle-ttl-ms': 1_000 } });
    const configKey = `${prefix}push:configs:T1`;
    await registry.put(task('T1'), META);
    await port.createTaskPushNotificationConfig({ taskId: 'T1', id: 'w', url: hook }, ALICE);
    // Time passing is the subject: the task keeps being written for twice the TTL.
    for (let i = 0; i < 8; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await registry.put(task('T1'), META);
    }
    expect(await redis.exists(configKey)).toBe(1);
    await expect.poll(() => redis.exists(`${prefix}t:T1`, configKey), { timeout: 5_000, interval: 25 }).toBe(0);
  });
});

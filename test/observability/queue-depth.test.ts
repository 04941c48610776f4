import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, beforeAll } from 'vitest';
import { createTaskRegistry } from '../../src/core/task-registry/index.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createGatewayMetrics } from '../../src/observability/metrics.js';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type PushQueue } from '../../src/push/queue/types.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';
import { ownRedis } from '../support/redis-server.js';

beforeAll(requireRedis);

const run = `test-metrics-${process.pid}-${randomBytes(4).toString('hex')}`;
const job = (eventId: string) => newPushJob({ eventId, taskId: 't', configId: 'c', owner: '', url: 'http://127.0.0.1:1/hook', payload: '{}' });

async function depthMetric(metrics: ReturnType<typeof createGatewayMetrics>, queue: string): Promise<number | undefined> {
  const gauge = (await metrics.registry.getSingleMetric('a2a_bridge_push_queue_depth')!.get()) as {
    values: Array<{ labels: { queue?: string }; value: number }>;
  };
  return gauge.values.find((v) => v.labels.queue === queue)?.value;
}

afterAll(async () => {
  await deleteRedisKeys(run);
});

describe('push queue depth (both queues) as a metric', () => {
  it('counts jobs not yet done in the local-file queue', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-depth-'));
    const queue: PushQueue = createLocalFileQueue({ dir });
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    metrics.watchQueue('local-file', () => queue.depth!());
    try {
      expect(await depthMetric(metrics, 'local-file')).toBe(0);
      await queue.enqueue(job('e1'));
      await queue.enqueue(job('e2'));
      // Not started: both wait.
      expect(await depthMetric(metrics, 'local-file')).toBe(2);
    } finally {
      await queue.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('counts entries of the Redis stream plus scheduled retries', async () => {
    const names = { stream: `${run}:push`, retryKey: `${run}:push:retry`, deadStream: `${run}:push:dead`, group: `${run}-group` };
    const queue = createRedisStreamsQueue({ url: REDIS_URL, leaseTimeoutMs: 300_000, ...names });
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    metrics.watchQueue('redis-streams', () => queue.depth!());
    const redis = new Redis(REDIS_URL);
    try {
      await queue.enqueue(job('e1'));
      await queue.enqueue(job('e2'));
      await redis.zadd(names.retryKey, Date.now() + 60_000, JSON.stringify(job('e3')));
      expect(await depthMetric(metrics, 'redis-streams')).toBe(3);
    } finally {
      await redis.quit();
      await queue.stop();
    }
  });
});

describe('Redis errors as a metric', () => {
  it('a registry that cannot reach Redis is counted under its component', async () => {
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    const read = async () => {
      const counter = (await metrics.registry.getSingleMetric('a2a_bridge_redis_errors_total')!.get()) as {
        values: Array<{ labels: { component?: string; kind?: string }; value: number }>;
      };
      // Its connection's failures: other files in this worker may have counted the registry's timeouts (another kind).
      return counter.values.find((v) => v.labels.component === 'task-registry' && v.labels.kind === 'connection')?.value ?? 0;
    };
    const before = await read();
    const registry = createTaskRegistry(defaultConfig({ store: 'redis', 'redis-url': 'redis://127.0.0.1:1', 'redis-prefix': `${run}:` }));
    try {
      for (let i = 0; i < 50 && (await read()) === before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await read()).toBeGreaterThan(before);
    } finally {
      await registry.close().catch(() => undefined);
    }
  });
});

describe('the Redis push queue while its Redis is frozen', () => {
  const names = { stream: `${run}:frozen`, retryKey: `${run}:frozen:retry`, deadStream: `${run}:frozen:dead`, group: `${run}-frozen` };

  it('a scrape answers within a second, without the depth it cannot read, and asks Redis once however many scrapes come', async () => {
    const server = await ownRedis();
    const queue = createRedisStreamsQueue({ url: server.url, leaseTimeoutMs: 300_000, ...names });
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    let reads = 0;
    metrics.watchQueue('redis-streams', () => (reads++, queue.depth!()));
    try {
      await queue.enqueue(job('e1'));
      expect(await depthMetric(metrics, 'redis-streams')).toBe(1);
      server.freeze();
      const started = Date.now();
      const scrapes = await Promise.all([metrics.registry.metrics(), metrics.registry.metrics(), depthMetric(metrics, 'redis-streams')]);
      // Held by the read, they would wait as long as Redis stays frozen (the queue's commands have no time-out).
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(scrapes[0]).not.toContain('a2a_bridge_push_queue_depth{');
      expect(scrapes[2]).toBeUndefined();
      expect(reads).toBe(2);
      server.thaw();
      expect(await depthMetric(metrics, 'redis-streams')).toBe(1);
    } finally {
      server.thaw();
      await queue.stop();
      await server.remove();
    }
  });
});

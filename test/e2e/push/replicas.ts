/**
 * Replicas in this process sharing one Redis (registry, push configs, queue, follow journal, claims),
 * as the multi-replica push tests start them: each test gets settings of its own (prefix, stream,
 * group), and what a test opened is closed after it.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, type TestContext } from 'vitest';
import { createRedisTaskRegistry } from '../../../src/core/task-registry/redis.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';
import { Receiver, startEnvironment, startHarness, type Environment, type Harness, type HarnessOptions } from './harness.js';

export interface ReplicaSet {
  /** This file's key prefix in Redis: every key a test makes starts with it. */
  run: string;
  /** Settings for the replicas of one new test: its own Redis prefix, stream and group; the file's push keys. */
  settings(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Which `settings()` call this is (1, 2, …): names a test's files and messages. */
  readonly counter: number;
  /** A replica on the shared Redis registry, closed after the test; `options` go to startHarness. */
  replica(settings: Record<string, unknown>, options?: Pick<HarnessOptions, 'queue' | 'logger'>): Promise<Harness>;
  /** A push receiver, stopped after the test. */
  receiver(): Promise<Receiver>;
  /** Something else to close after the test. */
  closeAfter(item: { close(): Promise<void> }): void;
  /** Closes what the test opened, last first (afterEach). */
  closeAll(): Promise<void>;
  /** Deletes the file's keys (afterAll). */
  cleanup(): Promise<void>;
}

/** `subdirs`: what the replicas' persistence-dirs start with, so the sets of tests running side by side keep theirs apart. */
export function replicaSet(name: string, deps: { env: () => Environment; redis: () => Redis }, subdirs = ''): ReplicaSet {
  const run = `test-push-${name}-${process.pid}-${randomBytes(4).toString('hex')}`;
  // Replicas must share push-keys to open each other's configs.
  const pushKeys = [`k1:${randomBytes(32).toString('base64')}`];
  const open: Array<{ close(): Promise<void> }> = [];
  let counter = 0;

  return {
    run,
    get counter() {
      return counter;
    },
    settings(extra = {}) {
      counter += 1;
      const base = `${run}:${counter}`;
      return {
        store: 'redis',
        'redis-url': REDIS_URL,
        'redis-prefix': `${base}:`,
        'push-keys': pushKeys,
        'push-queue': 'redis-streams',
        'push-redis-url': REDIS_URL,
        'push-stream': `${base}:push`,
        'push-retry-key': `${base}:push:retry`,
        'push-dead-stream': `${base}:push:dead`,
        'push-consumer-group': `${base}-group`,
        'push-lease-timeout-ms': 500,
        ...extra,
      };
    },
    async replica(settings, options = {}) {
      const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix: settings['redis-prefix'] as string, idleTtlMs: 60_000, historyLimit: 100 });
      open.push({ close: () => registry.close() });
      const h = await startHarness(deps.env(), settings, {
        redis: deps.redis(),
        registry,
        subdir: `${subdirs}r-${counter}-${open.length}`,
        followRetry: { initialDelayMs: 10, maxDelayMs: 40 },
        ...options,
      });
      open.push(h);
      return h;
    },
    async receiver() {
      const started = await new Receiver().up();
      open.push({ close: () => started.down() });
      return started;
    },
    closeAfter: (item) => void open.push(item),
    async closeAll() {
      for (const item of open.splice(0).reverse()) await item.close();
    },
    async cleanup() {
      const keys = await deps.redis().keys(`${run}*`);
      if (keys.length > 0) await deps.redis().del(...keys);
    },
  };
}

/**
 * A test file's environment (the demo agent), Redis connection and replica set: opened before its tests
 * (Redis must answer), what a test opened closed after it, the file's keys deleted at the end.
 */
export function replicaSuite(name: string): {
  replicas: ReplicaSet;
  /** A replica set of one test's own, for tests side by side: what it opened is closed, and its keys deleted, once it finishes. */
  replicasOf(context: TestContext): ReplicaSet;
  env(): Environment;
  redis(): Redis;
} {
  let env: Environment | undefined;
  let redis: Redis | undefined;
  const opened = { env: () => env as Environment, redis: () => redis as Redis };
  const replicas = replicaSet(name, opened);
  beforeAll(requireRedis);
  beforeAll(async () => {
    env = await startEnvironment();
    redis = new Redis(REDIS_URL);
  });
  afterEach(() => replicas.closeAll());
  afterAll(async () => {
    if (redis) await replicas.cleanup();
    await redis?.quit();
    await env?.close();
  });
  let tests = 0;
  const replicasOf = ({ onTestFinished }: TestContext) => {
    tests += 1;
    const own = replicaSet(`${name}-t${tests}`, opened, `t${tests}-`);
    onTestFinished(async () => {
      await own.closeAll();
      await own.cleanup();
    });
    return own;
  };
  return { replicas, replicasOf, ...opened };
}

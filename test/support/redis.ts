import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the Redis-backed suites use: REDIS_URL, or a local one. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const CONNECT_TIMEOUT_MS = 2_000;
let answered: Promise<void> | undefined;

/**
 * Fails with one clear message when no Redis answers at REDIS_URL, instead of a suite timing out on
 * connection retries. Asked once per test file (the answer is kept); call it in `beforeAll`. Never
 * skips: a missing Redis is a failed run, not a quietly smaller one.
 */
export function requireRedis(): Promise<void> {
  answered ??= ping();
  return answered;
}

async function ping(): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // The connection error itself says more (ECONNREFUSED, a DNS failure) than connect()'s rejection.
  let connectionError: Error | undefined;
  redis.on('error', (error: Error) => (connectionError = error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const reason = connectionError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`Redis-backed suite: no Redis at ${withoutPassword(REDIS_URL)} (start redis-server or set REDIS_URL): ${reason}`);
  } finally {
    redis.disconnect();
  }
}

/** The URL as it may be printed: a password in it is masked. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href.replace(/\/$/, '');
  } catch {
    return '(REDIS_URL is not a URL)';
  }
}

/** Removes every key under `prefix` (a test run's own), through a connection of its own. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

/**
 * What a gateway is started with to keep its stores in the Redis at REDIS_URL, under a prefix. A type, not an
 * interface: it is passed as the Record<string, unknown> a gateway's settings are.
 */
export type RedisStores = { store: 'redis'; 'redis-url': string; 'redis-prefix': string };

/**
 * Stores under a prefix of their own (`a2a-bridge-test:<topic>:<uuid>:`), so that runs and suites at once never share
 * keys; `cleanup` (onTestFinished, afterAll) deletes those keys. Call it before the gateways' own cleanup is
 * registered: both run their callbacks last-registered first (and onTestFinished after any afterEach), so the keys go
 * once the gateways are closed and wrote their last.
 */
export function freshRedisStores(topic: string, cleanup: (deleteKeys: () => Promise<void>) => void): RedisStores {
  const prefix = `a2a-bridge-test:${topic}:${randomUUID()}:`;
  cleanup(() => deleteRedisKeys(prefix));
  return redisStoresAt(prefix);
}

/** A gateway's stores in the Redis at REDIS_URL under `prefix`. */
export const redisStoresAt = (prefix: string): RedisStores => ({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix });

/** For a suite run once per store (`describe.each`): a gateway's settings for it, given the suite's Redis prefix. */
export const EACH_STORE = [
  { name: 'memory', config: (_prefix: string): Record<string, never> => ({}) },
  { name: 'redis', config: redisStoresAt },
] as const;

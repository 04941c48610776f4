import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { GatewayConfig } from '../config/schema.js';
import { redisEndpoint } from '../redis/tls.js';
import { createMemoryConfigStore } from './config-store/memory.js';
import { createRedisConfigStore } from './config-store/redis.js';
import type { PushConfigStore } from './config-store/types.js';
import { holdWhileUnreachable } from './queue/held-jobs.js';
import { createLocalFileQueue } from './queue/local-file.js';
import { createRedisStreamsQueue } from './queue/redis-streams.js';
import type { RetryPolicy } from './queue/retry-policy.js';
import { silentLogger, type PushLogger, type PushQueue } from './queue/types.js';
import { createKeyRing, type KeyRing } from './secrets.js';
import { pushKeyFile } from './key-file.js';
import { withFields } from '../model/index.js';

export * from './url-policy.js';
export { isPublicAddress } from './ip-ranges.js';
export * from './headers.js';
export * from './dispatch.js';
export * from './secrets.js';
export * from './config-store/types.js';
export { createMemoryConfigStore, type MemoryConfigStoreOptions } from './config-store/memory.js';
export { createRedisConfigStore, redisConfigKeyPrefix, type RedisConfigStoreOptions } from './config-store/redis.js';
export * from './queue/types.js';
export * from './queue/retry-policy.js';
export { createLocalFileQueue, type LocalFileQueueOptions } from './queue/local-file.js';
export { createRedisStreamsQueue } from './queue/redis-streams.js';
export { defaultConsumerName, type RedisStreamsQueueOptions } from './queue/redis-streams-options.js';
export { holdWhileUnreachable, type HeldJobsOptions } from './queue/held-jobs.js';

export interface PushQueueFactoryOptions {
  logger?: PushLogger;
  /** Overrides of the backoff (tests use milliseconds); maxAttempts defaults to `push-max-attempts`. */
  retry?: Partial<RetryPolicy>;
  concurrency?: number;
  /** Redis streams only: bound of one blocking read. */
  blockMs?: number;
}

/** A notification's attempts in all before it is dead-lettered: `push-max-attempts`, unless the options override it. */
export const maxDeliveryAttempts = (config: GatewayConfig, options: PushQueueFactoryOptions = {}): number =>
  options.retry?.maxAttempts ?? config['push-max-attempts'];

/** The queue `push-queue` selects, configured from the gateway config. */
export function createPushQueue(config: GatewayConfig, options: PushQueueFactoryOptions = {}): PushQueue {
  const retry: Partial<RetryPolicy> = withFields(options.retry ?? {}, { maxAttempts: maxDeliveryAttempts(config, options) });
  if (config['push-queue'] === 'redis-streams') {
    // Redis can go away for longer than a command waits for it: what it refuses meanwhile is held (on disk), not lost.
    const streams = createRedisStreamsQueue({
      url: redisEndpoint(config, config['push-redis-url']),
      stream: config['push-stream'],
      retryKey: config['push-retry-key'],
      deadStream: config['push-dead-stream'],
      group: config['push-consumer-group'],
      consumer: config['push-consumer-name'],
      leaseTimeoutMs: config['push-lease-timeout-ms'],
      retry,
      concurrency: options.concurrency,
      blockMs: options.blockMs,
      logger: options.logger,
    });
    return holdWhileUnreachable(streams, { logger: options.logger ?? silentLogger, journalDir: join(config['persistence-dir'], 'push-held') });
  }
  return createLocalFileQueue({
    dir: join(config['persistence-dir'], 'push'),
    retry,
    concurrency: options.concurrency,
    logger: options.logger,
  });
}

/**
 * The key ring from `push-keys`; without keys one is generated and kept in
 * `<persistence-dir>/push_keys.json`. That file is per host: replicas sharing a Redis config store
 * must share `push-keys`, or a replica cannot open configs another one stored (serve and check-config warn of
 * it: start/push-keys-warning.ts).
 */
export function createPushKeyRing(config: GatewayConfig): KeyRing {
  return createKeyRing(config['push-keys'], { generateIfEmpty: { persistPath: pushKeyFile(config) } });
}

/** The config store `store` selects; the Redis connection stays the caller's. */
export function createPushConfigStore(config: GatewayConfig, options: { keyRing: KeyRing; redis?: Redis }): PushConfigStore {
  const common = {
    keyRing: options.keyRing,
    maxConfigsPerTask: config['push-max-configs-per-task'],
    allowPrivate: config['push-allow-private'],
  };
  if (config.store === 'redis') {
    if (!options.redis) throw new Error('store: redis needs a Redis connection for push configs');
    // The task's idle TTL: the Redis registry renews it on every write of the task (expireWithTasks), so configs go with their task.
    return createRedisConfigStore(withFields(common, { redis: options.redis, prefix: config['redis-prefix'], ttlMs: config.tasks['idle-ttl-ms'] }));
  }
  return createMemoryConfigStore(common);
}

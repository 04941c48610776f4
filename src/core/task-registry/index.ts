import { getHeapStatistics } from 'node:v8';
import type { GatewayConfig } from '../../config/schema.js';
import type { RedisWatchLogger } from '../../observability/redis-errors.js';
import { redisEndpoint } from '../../redis/tls.js';
import { createMemoryTaskRegistry } from './memory.js';
import { createRedisTaskRegistry } from './redis.js';
import type { TaskRegistry } from './types.js';

export type { ExpiresLinkedKeys, ReportsDrops, TaskMeta, TaskRecord, TaskInScope, TaskRegistry, TaskScope, TaskStore } from './types.js';
export { createMemoryTaskRegistry } from './memory.js';
export { createRedisTaskRegistry } from './redis.js';

/** The registry the config asks for (`store: memory | redis`, `tasks.*`). */
export function createTaskRegistry(
  config: Pick<GatewayConfig, 'store' | 'redis-url' | 'redis-tls' | 'redis-prefix' | 'redis-command-timeout-ms' | 'tasks'>,
  logger?: RedisWatchLogger,
): TaskRegistry {
  const tasks = config.tasks;
  if (config.store === 'redis') {
    return createRedisTaskRegistry({
      url: redisEndpoint(config),
      commandTimeoutMs: config['redis-command-timeout-ms'],
      prefix: config['redis-prefix'],
      idleTtlMs: tasks['idle-ttl-ms'],
      contextOwnerTtlMs: tasks['context-owner-ttl-ms'],
      historyLimit: tasks['history-limit'],
      historyPartMaxBytes: tasks['history-part-max-bytes'],
      ...(logger ? { logger } : {}),
    });
  }
  return createMemoryTaskRegistry({
    maxTasks: tasks['max-tasks'],
    maxBytes: tasks['max-bytes'] ?? defaultMaxBytes(),
    idleTtlMs: tasks['idle-ttl-ms'],
    contextOwnerTtlMs: tasks['context-owner-ttl-ms'],
    historyLimit: tasks['history-limit'],
    historyPartMaxBytes: tasks['history-part-max-bytes'],
  });
}

/**
 * A quarter of the heap this process may grow to (`--max-old-space-size`, else V8's default from the
 * machine's memory): the rest is for calls in flight, streams and the runtime. Past the heap limit Node
 * ends the process, and every open stream with it.
 */
export function defaultMaxBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 4);
}

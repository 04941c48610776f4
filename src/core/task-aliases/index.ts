import type { GatewayConfig } from '../../config/schema.js';
import type { RedisWatchLogger } from '../../observability/redis-errors.js';
import { redisEndpoint } from '../../redis/tls.js';
import { createMemoryTaskAliases } from './memory.js';
import { createRedisTaskAliases } from './redis.js';
import type { TaskAliases } from './types.js';

export type { TaskAlias, TaskAliases } from './types.js';
export { createMemoryTaskAliases } from './memory.js';
export { createRedisTaskAliases } from './redis.js';

/** The alias store next to the task registry: memory for one replica, Redis when replicas share tasks. */
export function createTaskAliases(
  config: Pick<GatewayConfig, 'store' | 'redis-url' | 'redis-tls' | 'redis-prefix' | 'redis-command-timeout-ms' | 'tasks'>,
  logger?: RedisWatchLogger,
): TaskAliases {
  if (config.store === 'redis') {
    return createRedisTaskAliases({
      url: redisEndpoint(config),
      prefix: config['redis-prefix'],
      idleTtlMs: config.tasks['idle-ttl-ms'],
      commandTimeoutMs: config['redis-command-timeout-ms'],
      ...(logger ? { logger } : {}),
    });
  }
  return createMemoryTaskAliases({ max: config.tasks['max-tasks'], idleTtlMs: config.tasks['idle-ttl-ms'] });
}

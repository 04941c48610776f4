import type { GatewayConfig } from '../config/schema.js';
import { redisEndpoint } from '../redis/tls.js';
import { createRedisContextLanes, type RedisContextLanesOptions } from './context-lanes-redis.js';
import { createContextLanes, type ContextLanes } from './context-lanes.js';

/** The lanes the config asks for: shared through Redis with `store: redis`, so replicas keep one turn per context between them. */
export function createContextLanesFor(
  config: Pick<GatewayConfig, 'store' | 'redis-url' | 'redis-tls' | 'redis-prefix' | 'redis-command-timeout-ms' | 'tasks'>,
  logger?: RedisContextLanesOptions['logger'],
): ContextLanes {
  if (config.store !== 'redis') return createContextLanes();
  return createRedisContextLanes({
    url: redisEndpoint(config),
    prefix: config['redis-prefix'],
    commandTimeoutMs: config['redis-command-timeout-ms'],
    leaseMs: config.tasks['lane-lease-ms'],
    ...(logger ? { logger } : {}),
  });
}

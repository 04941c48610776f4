import type { GatewayConfig } from '../../config/schema.js';
import { createMemoryTaskRegistry } from './memory.js';
import { createRedisTaskRegistry } from './redis.js';
import type { TaskRegistry } from './types.js';

export type { ExpiresLinkedKeys, ReportsDrops, TaskMeta, TaskRecord, TaskRegistry, TaskStore } from './types.js';
export { createMemoryTaskRegistry } from './memory.js';
export { createRedisTaskRegistry } from './redis.js';
export { withHistoryLength } from './query.js';

/** The registry the config asks for (`store: memory | redis`, `tasks.*`). */
export function createTaskRegistry(config: Pick<GatewayConfig, 'store' | 'redis-url' | 'redis-prefix' | 'tasks'>): TaskRegistry {
  const tasks = config.tasks;
  if (config.store === 'redis') {
    return createRedisTaskRegistry({
      url: config['redis-url'],
      prefix: config['redis-prefix'],
      idleTtlMs: tasks['idle-ttl-ms'],
      historyLimit: tasks['history-limit'],
    });
  }
  return createMemoryTaskRegistry({
    maxTasks: tasks['max-tasks'],
    idleTtlMs: tasks['idle-ttl-ms'],
    historyLimit: tasks['history-limit'],
  });
}

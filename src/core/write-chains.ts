import type { Logger } from 'pino';
import type { StreamResponse } from '../model/index.js';
import type { TaskMeta, TaskRegistry } from './task-registry/types.js';

/**
 * Registry writes, fire-and-track: each event is queued on a per-task promise chain, so writes keep
 * their order and a Redis round trip never delays the event that caused it. Write errors are logged,
 * never thrown into the stream.
 */
export interface WriteChains {
  /** Queues the event's write after the task's earlier ones; resolves when it is done (or failed). */
  record(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void>;
  /** Resolves once every write queued for the task so far is done, so a read sees every event relayed. */
  settled(taskId: string): Promise<void>;
}

export function createWriteChains(registry: TaskRegistry, logger?: Logger): WriteChains {
  const tails = new Map<string, Promise<void>>();
  return {
    record(event, meta, taskId) {
      const previous = tails.get(taskId) ?? Promise.resolve();
      const write = previous
        .then(() => registry.apply(event, meta))
        .then(
          () => undefined,
          (error: unknown) => logger?.warn({ err: error, taskId }, 'task registry write failed'),
        );
      tails.set(taskId, write);
      void write.then(() => {
        if (tails.get(taskId) === write) tails.delete(taskId);
      });
      return write;
    },
    async settled(taskId) {
      await tails.get(taskId);
    },
  };
}

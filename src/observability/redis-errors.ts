/**
 * Redis connection errors counted per component, process-wide: the connections are opened deep in
 * the stores and queues, which only need to report here; the metrics read the counts at scrape time.
 */
const counts = new Map<string, number>();

export function noteRedisError(
  component: 'task-registry' | 'context-lanes' | 'turn-slots' | 'task-aliases' | 'conversation-languages' | 'push-configs' | 'push-queue',
): void {
  counts.set(component, (counts.get(component) ?? 0) + 1);
}

export const redisErrorCounts = (): ReadonlyMap<string, number> => counts;

/**
 * The streams open per task, in arrival order: a helper for decorators whose effect must happen once
 * per event (recording.ts, fan-out.ts), each with its own. Two callers can follow one task (a send's
 * stream and a subscription): only the first's events are recorded and published, so the registry and
 * the event hub see each event once.
 */
export interface OpenStreams {
  /** Counts `stream` as following the task; true when it is the task's first (recording) stream. */
  join(taskId: string, stream: symbol): boolean;
  /** Whether any stream of the task is open: then the stream, not an answer, is the live authority. */
  has(taskId: string): boolean;
  /** Removes `stream` from the tasks it followed; returns the tasks no stream follows any more. */
  leave(stream: symbol, taskIds: Iterable<string>): string[];
}

export function createOpenStreams(): OpenStreams {
  const byTask = new Map<string, Set<symbol>>();
  return {
    join(taskId, stream) {
      let streams = byTask.get(taskId);
      if (!streams) byTask.set(taskId, (streams = new Set()));
      streams.add(stream);
      return streams.values().next().value === stream;
    },
    has: (taskId) => byTask.has(taskId),
    leave(stream, taskIds) {
      const ended: string[] = [];
      for (const taskId of taskIds) {
        const streams = byTask.get(taskId);
        if (!streams?.delete(stream) || streams.size > 0) continue;
        byTask.delete(taskId);
        ended.push(taskId);
      }
      return ended;
    },
  };
}

import { eventTaskRef, type StreamResponse } from '../model/index.js';
import { tapIterable } from './iterables.js';
import { addedOnce, appended } from './small-lists.js';

/**
 * The streams open per task, in arrival order: a helper for decorators whose effect must happen once
 * per event (recording.ts, fan-out.ts), each with its own. Two callers can follow one task (a send's
 * stream and a subscription): only the first's events are recorded and published, so the registry and
 * the event hub see each event once.
 */
export interface OpenStreams {
  /** Whether any stream of the task is open: then the stream, not an answer, is the live authority. */
  has(taskId: string): boolean;
  /**
   * Passes `source` through, its events yielded as they arrive. Each event of a task this stream is the
   * first to follow goes to `lead` before it is yielded, after the promise `lead` may return (recording.ts:
   * a new task's write). The first event of each task this stream meets goes
   * to `meet` first, led or not: what the stream itself brings to its task (a follow-up's message) is had
   * once, also when another stream leads. When the stream ends (finished, failed or returned), `end` gets
   * the tasks it led, those no stream follows any more and what the stream failed with; the stream ends after it.
   * Each task the stream meets goes to `vet` before all that, and its event waits for the promise `vet` may return:
   * what it fails with fails the stream, the task neither met nor followed (recording.ts: another caller's task).
   * In this layer, not one of its own: a layer is a step and a `return()` of its own per stream.
   */
  follow(
    source: AsyncIterable<StreamResponse>,
    lead: (event: StreamResponse, taskId: string) => Promise<void> | void,
    end: (led: readonly string[], unfollowed: readonly string[], error: unknown) => Promise<unknown> | void,
    meet?: (event: StreamResponse, taskId: string, leads: boolean) => void,
    vet?: (taskId: string) => Promise<void> | void,
  ): AsyncIterable<StreamResponse>;
}

const NONE: readonly string[] = [];

export function createOpenStreams(): OpenStreams {
  // Followers in arrival order; arrays, not Sets: with thousands of open streams every per-stream table counts.
  const byTask = new Map<string, symbol[]>();

  function join(taskId: string, stream: symbol): boolean {
    const known = byTask.get(taskId);
    const streams = addedOnce(known, stream);
    if (streams !== known) byTask.set(taskId, streams);
    return streams[0] === stream;
  }

  /** The tasks no stream follows once `stream` left them; a list made at the first (small-lists.ts). */
  function leave(stream: symbol, taskIds: readonly string[]): string[] | undefined {
    let unfollowed: string[] | undefined;
    for (const taskId of taskIds) {
      const streams = byTask.get(taskId);
      const at = streams ? streams.indexOf(stream) : -1;
      if (!streams || at < 0) continue;
      // The stream was the task's only follower (nearly always): its list goes whole, without splice's array of one.
      if (streams.length > 1) {
        streams.splice(at, 1);
        continue;
      }
      byTask.delete(taskId);
      unfollowed = appended(unfollowed, taskId);
    }
    return unfollowed;
  }

  return {
    has: (taskId) => byTask.has(taskId),
    follow(source, lead, end, meet, vet) {
      const self = Symbol('stream');
      // Made on the first task met (small-lists.ts): most streams follow one task, an idle one holds these lists for long.
      let joined: string[] | undefined;
      let led: string[] | undefined;
      let ended = false;
      const followed = (event: StreamResponse, taskId: string, met: boolean): Promise<void> | void => {
        // Vetted after its reader returned the stream: the event is not shown, the task not followed any more.
        if (ended) return;
        if (!met) joined = appended(joined, taskId);
        const leads = join(taskId, self);
        if (!met) meet?.(event, taskId, leads);
        if (!leads) return;
        led = addedOnce(led, taskId);
        return lead(event, taskId);
      };
      return tapIterable(source, {
        item(event) {
          const { taskId } = eventTaskRef(event);
          if (!taskId) return;
          const met = joined?.includes(taskId) === true;
          const vetted = met ? undefined : vet?.(taskId);
          return vetted ? vetted.then(() => followed(event, taskId, false)) : followed(event, taskId, met);
        },
        end: (_how, error) => {
          ended = true;
          // The stream's own lists: nothing is added to them once it ended.
          return end(led ?? NONE, (joined && leave(self, joined)) ?? NONE, error);
        },
      });
    },
  };
}

import { LRUCache } from 'lru-cache';
import { eventTaskRef, isActiveState, type StreamResponse } from '../model/index.js';
import { timedSignal } from '../timed-signal.js';

/** Tasks remembered at once; past this the oldest is forgotten (its context is then kept busy as before). */
const MAX_NOTED = 10_000;
/**
 * How long the agent is given to end a subscription it has nothing live for. An a2a-js 1.x agent ends it right after
 * the task's snapshot (no event bus is left once the executor returned); one that runs the task keeps it open. Past
 * this the task is taken to run, as it was before the question was asked: the message is refused as a turn in progress.
 */
export const PROBE_MS = 2_000;

/**
 * Turns whose own stream the agent ended before the turn's end, cleanly, the task still working. An a2a-js 1.x
 * agent does so when its executor returns without publishing the turn's end (a bug of the agent, a common one):
 * the task stays working for good, and admission, which keeps a context busy while the agent says its latest
 * task works (admission.ts runsWithoutLane), refused every later message of the conversation as a turn in
 * progress, though the agent, spoken to directly, takes them. Only for such a task is the agent asked whether a
 * run of it goes on; a stream cut by the way (a proxy) leaves the agent running the turn, and the context busy.
 * In this process only: a message another replica admits is refused as before.
 */
export interface UnendedTurns {
  /** Watches a turn's stream: a clean end while its task still works notes the task. */
  watch(): { saw(event: StreamResponse): void; ended(cleanly: boolean): void };
  /**
   * Whether a noted task has no run going on at the agent: its subscription (`subscribe`, bounded by the signal it
   * is given) opens with the task still working and ends right after it. False for any other task, and whenever
   * the agent cannot say (a refusal, an error, a subscription still open at PROBE_MS).
   */
  runsNothing(taskId: string, subscribe: (signal: AbortSignal) => AsyncIterable<StreamResponse>, parent?: AbortSignal): Promise<boolean>;
}

export function createUnendedTurns(probeMs = PROBE_MS): UnendedTurns {
  const noted = new LRUCache<string, true>({ max: MAX_NOTED });
  return {
    watch() {
      let taskId: string | undefined;
      let works = false;
      return {
        saw(event) {
          const ref = eventTaskRef(event);
          if (ref.taskId) taskId = ref.taskId;
          const state = 'statusUpdate' in event ? event.statusUpdate.status.state : 'task' in event ? event.task.status.state : undefined;
          if (state !== undefined) works = isActiveState(state);
          if ('message' in event) works = false;
        },
        ended(cleanly) {
          if (cleanly && works && taskId) noted.set(taskId, true);
        },
      };
    },
    async runsNothing(taskId, subscribe, parent) {
      // Asked each time: a message naming the task may have started a run of it since.
      return noted.has(taskId) && endsAtSnapshot(subscribe, parent, probeMs);
    },
  };
}

/** Whether the subscription opens with its task still working and ends right after it, within `ms`. */
async function endsAtSnapshot(
  subscribe: (signal: AbortSignal) => AsyncIterable<StreamResponse>,
  parent: AbortSignal | undefined,
  ms: number,
): Promise<boolean> {
  const bound = timedSignal(parent, ms);
  const aborted = new Promise<'late'>((resolve) => bound.signal.addEventListener('abort', () => resolve('late'), { once: true }));
  let iterator: AsyncIterator<StreamResponse> | undefined;
  try {
    iterator = subscribe(bound.signal)[Symbol.asyncIterator]();
    const first = await Promise.race([iterator.next(), aborted]);
    if (first === 'late' || first.done || !('task' in first.value) || !isActiveState(first.value.task.status.state)) return false;
    const next = await Promise.race([iterator.next(), aborted]);
    return next !== 'late' && next.done === true;
  } catch {
    return false;
  } finally {
    bound.clear();
    const open = iterator;
    // Not awaited: a subscription still open is let go in the background; its reader is done with it.
    void Promise.resolve(open?.return?.()).catch(() => undefined);
  }
}

import { A2AError, ErrorCode, type TaskState } from '../model/index.js';
import { wokenWithin } from '../woken-within.js';

/** The right to run one turn on a context. */
export interface Lease {
  readonly key: string;
  /** The task whose paused turn holds the lane (it waits for an answer while its stream stays open), if any. */
  readonly taskId: string | undefined;
  /**
   * Names the task whose turn paused while holding the lane, so an answer for it is let through (on any
   * replica); undefined when the turn goes on, so that nothing else gets into the running turn.
   */
  bindTask(taskId: string | undefined): void;
  /**
   * Names the task the turn runs on, so that another replica may take the lane over should this process die
   * and the registry later record the turn over: the task finished, or (unless `onlyFinishedEnds`) waiting for
   * input. `onlyFinishedEnds` when the registry may still hold the interrupted state the turn began from (a
   * blocking follow-up: nothing is recorded before its answer). Ignored while the lane names a paused task; a
   * later bindTask clears it.
   */
  runsTask(taskId: string, options?: { onlyFinishedEnds?: boolean }): void;
  /**
   * Idempotent; a released lease never frees a lane someone else has taken since. Resolves once the
   * lane is free for everyone, so a caller told "the turn ended" can start the next one at once.
   */
  release(): Promise<void>;
}

/**
 * One running turn per context (iac-code damages a running task when a second message arrives,
 * see docs/iac-code.md, "One turn per context"). A busy lane rejects at once: queueing would hold the caller's
 * connection for a whole turn.
 */
export interface ContextLanes {
  /**
   * The lane (optionally naming a paused task already), or undefined when another turn holds it: the caller rejects,
   * it does not queue. With `recordedState`, a lane whose holder named its task and missed a renewal, and whose
   * task the registry records over (finished, or waiting for input: the agent asked its question), is taken over
   * at once: its holder died before it could release it. A live holder renews, so it keeps its lane however early
   * the registry records its turn over.
   */
  tryAcquire(key: string, taskId?: string, recordedState?: RecordedState): Promise<Lease | undefined>;
  /** The task whose paused turn holds the lane, when the lane is held by one that is alive (it renews its lease). */
  holderTask(key: string): Promise<string | undefined>;
  /**
   * Resolves once no turn runs holding the lane (free, paused on a question, or its holder no longer renews it), or
   * after `withinMs`: for a message that may have come as the caller of the turn holding it hung up, while the
   * holder (another replica) is still letting it go. At once when no turn runs on it. Says how the wait ended
   * (LetGo): a turn still running at its bound keeps its lane, and the message is refused as a turn in progress,
   * `withinMs` later: not let into a lane let go only after the wait gave up, before the turn left is noted.
   */
  letGo(key: string, withinMs: number): Promise<LetGo>;
  /**
   * Stops renewing held leases, not releasing them (their turns may still run at the agent): one that names its
   * task is left as a dead holder's, taken over as soon as the registry records its turn over; the rest expire.
   * Then releases what the lanes own.
   */
  close(): Promise<void>;
}

/**
 * How a wait for a lane's turn to be let go ended: `free`, no turn ran holding it (or the lane could not be read:
 * the message's own acquisition then says what is wrong); `let-go`, its turn let it go (or paused) within the wait;
 * `held`, the wait ended at its bound with a turn still running holding it, as last read.
 */
export type LetGo = 'free' | 'let-go' | 'held';

/** A task's state as the registry records it (undefined: not recorded). */
export type RecordedState = (taskId: string) => Promise<TaskState | undefined>;

/**
 * In-process lanes: enough for one replica (the default, `store: memory`). Their holder is this process, which
 * releases every lane when its turn ends, so nothing is ever taken over (`recordedState` is not needed).
 */
export function createContextLanes(): ContextLanes {
  const held = new Map<string, Lease>();
  /** What each held lane's release wakes (letGo). */
  const letGoWaiters = new Map<string, Set<() => void>>();
  return {
    async tryAcquire(key, taskId) {
      if (held.has(key)) return undefined;
      let released = false;
      // The task a plain field, not a getter: an object literal with an accessor is a dictionary-mode object
      // (470 bytes, held by every open stream's turn; docs/performance.md).
      const lease = {
        key,
        taskId,
        bindTask(id: string | undefined) {
          lease.taskId = id;
        },
        runsTask() {},
        async release() {
          if (released) return;
          released = true;
          if (held.get(key) !== lease) return;
          held.delete(key);
          for (const letGo of letGoWaiters.get(key) ?? []) letGo();
        },
      };
      held.set(key, lease);
      return lease;
    },
    holderTask: async (key) => held.get(key)?.taskId,
    async letGo(key, withinMs) {
      // A paused turn names its task (bindTask): a message may ride along into it, nothing is let go.
      const runs = (): boolean => held.has(key) && held.get(key)?.taskId === undefined;
      if (!runs()) return 'free';
      const waiters = letGoWaiters.get(key) ?? new Set();
      letGoWaiters.set(key, waiters);
      await wokenWithin(waiters, withinMs);
      if (waiters.size === 0 && letGoWaiters.get(key) === waiters) letGoWaiters.delete(key);
      return runs() ? 'held' : 'let-go';
    },
    async close() {
      held.clear();
    },
  };
}

/** -32602 for a message on a context whose previous turn is still running. */
const TURN_IN_PROGRESS = 'already has a turn in progress; retry when it has finished';

export function contextBusyError(contextId: string): A2AError {
  return new A2AError(ErrorCode.InvalidParams, `Context ${contextId} ${TURN_IN_PROGRESS}`, { metadata: { contextId } });
}

/** Whether `error` is that refusal (a surface that tells it in its caller's words). */
export const isContextBusyError = (error: A2AError): boolean =>
  error.code === ErrorCode.InvalidParams && error.message === `Context ${error.metadata.contextId ?? ''} ${TURN_IN_PROGRESS}`;

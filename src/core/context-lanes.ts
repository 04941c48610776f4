import { A2AError, ErrorCode } from '../model/index.js';

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
  /** The lane (optionally naming a paused task already), or undefined when another turn holds it: the caller rejects, it does not queue. */
  tryAcquire(key: string, taskId?: string): Promise<Lease | undefined>;
  /** The task whose paused turn holds the lane, when the lane is held by one. */
  holderTask(key: string): Promise<string | undefined>;
  /** Stops renewing held leases (they expire) and releases what the lanes own. */
  close(): Promise<void>;
}

/** In-process lanes: enough for one replica (the default, `store: memory`). */
export function createContextLanes(): ContextLanes {
  const held = new Map<string, Lease>();
  return {
    async tryAcquire(key, taskId) {
      if (held.has(key)) return undefined;
      let released = false;
      let boundTask = taskId;
      const lease: Lease = {
        key,
        get taskId() {
          return boundTask;
        },
        bindTask(id) {
          boundTask = id;
        },
        async release() {
          if (released) return;
          released = true;
          if (held.get(key) === lease) held.delete(key);
        },
      };
      held.set(key, lease);
      return lease;
    },
    holderTask: async (key) => held.get(key)?.taskId,
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

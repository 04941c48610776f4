import { A2AError, ErrorCode } from '../model/index.js';

/** The right to run one turn on a context. */
export interface Lease {
  readonly key: string;
  /** The task whose turn holds the lane, once known (lets a permission answer for it through). */
  taskId?: string;
  /** Idempotent; a released lease never frees a lane someone else has taken since. */
  release(): void;
}

export interface ContextLanes {
  /** The lane, or undefined when another turn holds it (the caller rejects, it does not queue). */
  tryAcquire(key: string): Lease | undefined;
  isBusy(key: string): boolean;
  /** The lease currently holding the lane. */
  holder(key: string): Lease | undefined;
}

/**
 * One running turn per context (iac-code damages a running task when a second message arrives,
 * see iac-code-surface.md §5.3). A busy lane rejects at once: queueing would hold the caller's
 * connection for a whole turn. In-process only: replicas behind a load balancer need sticky
 * routing by context until the lanes move to a shared store.
 */
export function createContextLanes(): ContextLanes {
  const held = new Map<string, Lease>();
  return {
    tryAcquire(key: string): Lease | undefined {
      if (held.has(key)) return undefined;
      let released = false;
      const lease: Lease = {
        key,
        release() {
          if (released) return;
          released = true;
          if (held.get(key) === lease) held.delete(key);
        },
      };
      held.set(key, lease);
      return lease;
    },
    isBusy: (key) => held.has(key),
    holder: (key) => held.get(key),
  };
}

/** -32602 for a message on a context whose previous turn is still running. */
export function contextBusyError(contextId: string): A2AError {
  return new A2AError(
    ErrorCode.InvalidParams,
    `Context ${contextId} already has a turn in progress; retry when it has finished`,
    { metadata: { contextId } },
  );
}

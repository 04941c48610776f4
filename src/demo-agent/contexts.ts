import { randomUUID } from 'node:crypto';

/** One conversation: its turn counter feeds demoReply, and one turn runs at a time. */
export interface DemoContext {
  readonly id: string;
  readonly sessionId: string;
  turns: number;
  /** The task whose turn holds the context, if any. */
  holder: string | undefined;
  readonly waiters: Set<() => void>;
}

/** Contexts by id, capped: when full, the oldest idle context is forgotten (its turn count restarts). */
export class ContextRegistry {
  private readonly contexts = new Map<string, DemoContext>();

  constructor(private readonly maxContexts: number) {}

  get(id: string): DemoContext {
    const existing = this.contexts.get(id);
    if (existing) return existing;
    const created: DemoContext = { id, sessionId: randomUUID(), turns: 0, holder: undefined, waiters: new Set() };
    this.contexts.set(id, created);
    this.evictIdle();
    return created;
  }

  /**
   * Take the context for a task's turn, waiting up to `timeoutMs` for a running turn to end
   * (iac-code waits 1 s, then fails the newcomer). Resolves false on timeout or abort.
   */
  acquire(context: DemoContext, taskId: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    if (context.holder === undefined) {
      context.holder = taskId;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const finish = (acquired: boolean): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        context.waiters.delete(tryTake);
        resolve(acquired);
      };
      const tryTake = (): void => {
        if (context.holder !== undefined || signal.aborted) return;
        context.holder = taskId;
        finish(true);
      };
      const onAbort = (): void => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      context.waiters.add(tryTake);
    });
  }

  /** Release the context if this task holds it and hand it to the first waiter. */
  release(context: DemoContext, taskId: string): void {
    if (context.holder !== taskId) return;
    context.holder = undefined;
    for (const wake of [...context.waiters]) {
      wake();
      if (context.holder !== undefined) return;
    }
  }

  private evictIdle(): void {
    if (this.contexts.size <= this.maxContexts) return;
    for (const [id, context] of this.contexts) {
      if (this.contexts.size <= this.maxContexts) return;
      if (context.holder === undefined && context.waiters.size === 0) this.contexts.delete(id);
    }
  }
}

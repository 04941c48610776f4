/**
 * iac-code's idle eviction, as its source has it (docs/iac-code.md, "Idle eviction"): a context idle past
 * the timeout is dropped from memory and each of its tasks is tombstoned. A message to a tombstoned task
 * fails that task at once, FAILED "A2A task expired", with no task event first (the SDK still holds the
 * task). A new task in the evicted context is taken: iac-code reads the context back from its saved
 * session. iac-code also has a refusal for a context it keeps marked expired ("ValueError: A2A context
 * expired", on the new task after its task event), which nothing in its eviction sets today; `refuseContext`
 * plays it.
 */
import type { Json } from './fake-iac-code-data.js';

export const TASK_EXPIRED = 'A2A task expired';
export const CONTEXT_EXPIRED = 'ValueError: A2A context expired';

export interface EvictOptions {
  /** The context's id is refused from now on too, not only its tasks. */
  refuseContext?: boolean;
}

export class Evictions {
  private readonly tombstones = new Set<string>();
  private readonly refusedContexts = new Set<string>();

  /** Evict a context: every one of `tasks` (the server's) that is the context's gets a tombstone. */
  evict(contextId: string, tasks: Iterable<Json>, options: EvictOptions = {}): void {
    for (const task of tasks) if (task.contextId === contextId) this.tombstones.add(task.id as string);
    if (options.refuseContext) this.refusedContexts.add(contextId);
  }

  /** The reason iac-code fails a message to `taskId` (undefined: a new task) in `contextId` with, if it does. */
  refusal(taskId: string | undefined, contextId: string): string | undefined {
    if (taskId !== undefined && this.tombstones.has(taskId)) return TASK_EXPIRED;
    return this.refusedContexts.has(contextId) ? CONTEXT_EXPIRED : undefined;
  }
}

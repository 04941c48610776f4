import type { ListTasksRequest, ListTasksResponse, StreamResponse, Task } from '../../model/index.js';

/** Who a stored task belongs to and which upstream produced it. */
export interface TaskMeta {
  /** The principal that created the task (CallContext.principal); '' without gateway auth. */
  owner: string;
  /** Name of the upstream the task lives on. */
  upstream: string;
}

/** One stored task: the 1.0 Task (history bounded by `tasks.history-limit`) plus bookkeeping. */
export interface TaskRecord extends TaskMeta {
  task: Task;
  /** Epoch ms of the last write. */
  updatedAt: number;
}

/**
 * The gateway's own view of every task that passed through it, partitioned by owner.
 *
 * Tasks handed out are shared, read-only snapshots: callers must not mutate them (the memory
 * store keeps references, and events are fanned out to several consumers).
 */
export interface TaskRegistry {
  /**
   * Fold one stream event into the stored task and return the new snapshot. Returns undefined
   * when the event carries no task (a bare message), names a task of another owner, or is an
   * update that cannot be attributed to a task.
   */
  apply(event: StreamResponse, meta: TaskMeta): Promise<Task | undefined>;
  /** Store a full snapshot (replacing the previous one, history trimmed to the limit). */
  put(task: Task, meta: TaskMeta): Promise<void>;
  /** The task, or undefined when unknown or owned by someone else. */
  get(taskId: string, owner: string): Promise<Task | undefined>;
  /** Owner of a known task, whoever asks: lets the gateway tell "unknown" from "someone else's". */
  ownerOf(taskId: string): Promise<string | undefined>;
  /** Owner of a known context (the owner of its first recorded task). */
  contextOwner(contextId: string): Promise<string | undefined>;
  /** ListTasks for one owner (filters, order, keyset paging; see list-query.ts). */
  list(request: ListTasksRequest, owner: string): Promise<ListTasksResponse>;
  /** The most recently updated task of a context, for this owner. */
  latestForContext(contextId: string, owner: string): Promise<Task | undefined>;
  /**
   * Data kept per task elsewhere (push configs) must go when the task does, by one of two means, and
   * each registry implements the one that fits it and the other as a no-op:
   *
   * - a registry that drops tasks in this process (memory: LRU eviction, idle expiry) reports each
   *   one to `onEvicted` listeners (`close()` is not a drop). Returns the unsubscribe.
   * - Redis expires tasks inside Redis and tells no one: instead, with `expireWithTasks`, the key
   *   `<keyPrefix><taskId>` gets the task's idle TTL again on every write of the task.
   */
  onEvicted(listener: (taskId: string) => void): () => void;
  expireWithTasks(keyPrefix: string): void;
  close(): Promise<void>;
}

import type { ListTasksRequest, ListTasksResponse, StreamResponse, Task } from '../../model/index.js';

/** Who a stored task belongs to and which upstream produced it. */
export interface TaskMeta {
  /** The principal that created the task (CallContext.principal); '' without gateway auth. */
  owner: string;
  /** Name of the upstream the task lives on. */
  upstream: string;
  /**
   * The tenant the task was created under (A2A 1.0 `tenant`): one of the owner's partitions, as an a2a-js
   * 1.x agent keeps its tasks. Absent or '': the default tenant, also of every record written before
   * tenants were recorded.
   */
  tenant?: string;
}

/** Whose a known task is: its owner, and the tenant it was created under ('' the default tenant). */
export interface TaskScope {
  owner: string;
  tenant: string;
}

/**
 * Whose a known context is: its owner, and the tenant it was opened under ('' the default tenant).
 * No tenant: not recorded (a context a release of before context tenants opened, on Redis; such a
 * context is its owner's under any tenant, as every context was then).
 */
export interface ContextScope {
  owner: string;
  tenant?: string;
}

/** A stored task and the tenant it was recorded under ('' the default tenant). */
export interface TaskInScope {
  task: Task;
  tenant: string;
}

/** One stored task: the 1.0 Task (history bounded by `tasks.history-limit`) plus bookkeeping. */
export interface TaskRecord extends TaskMeta {
  /** Always set here ('' the default tenant). */
  tenant: string;
  task: Task;
  /** When it was last written, as a count of this store's writes: later writes have greater numbers. */
  written: number;
}

/**
 * The gateway's own view of every task that passed through it, partitioned by owner, and each owner's
 * tasks by tenant (TaskMeta.tenant).
 *
 * Tasks handed out are shared, read-only snapshots: callers must not mutate them (the memory
 * store keeps references, and events are fanned out to several consumers).
 */
export interface TaskStore {
  /**
   * How many messages of a task's history a record keeps (`tasks.history-limit`): a record holding fewer was
   * never cut at its front, so it starts where the task did (first-message.ts). Absent: the whole history.
   */
  readonly historyLimit?: number;
  /**
   * Fold one stream event into the stored task and return the new snapshot (a Task snapshot replaces it, but
   * for the user's messages the stored history holds and the snapshot's lacks: caller-messages.ts). Returns undefined
   * when the event carries no task (a bare message), names a task of another owner or tenant, is an
   * update that cannot be attributed to a task, or would take a finished task back to running
   * (`unlessReopened` in fold.ts: then nothing is written, by any write).
   */
  apply(event: StreamResponse, meta: TaskMeta): Promise<Task | undefined>;
  /**
   * Fold several events of one task, in order, in ONE write: what the core persists of a stream at
   * each of its persist points (task-writer.ts). Undefined when none of them could be applied.
   * `writeId` names the write (unique among every writer's): a store whose write may fail after it was applied
   * (Redis: a command that timed out on the client) keeps the ids of a task's last writes with it, and a write
   * it already holds is not folded again but answered with the task as it stands, so a failed write can be
   * retried safely. The memory store's writes cannot fail so: it ignores the id.
   */
  applyAll(events: readonly StreamResponse[], meta: TaskMeta, writeId?: string): Promise<Task | undefined>;
  /** Store a full snapshot (replacing the previous one, history trimmed to the limit; a running one never replaces a finished one). */
  put(task: Task, meta: TaskMeta): Promise<void>;
  /**
   * The task, or undefined when unknown or owned by someone else. Under any of the owner's tenants: what
   * names a task is scoped to its tenant first (scopeOf, task-scope.ts).
   */
  get(taskId: string, owner: string): Promise<Task | undefined>;
  /** Owner of a known task, whoever asks: lets the gateway tell "unknown" from "someone else's". */
  ownerOf(taskId: string): Promise<string | undefined>;
  /** Owner and tenant of a known task, whoever asks, in the one read ownerOf costs. */
  scopeOf(taskId: string): Promise<TaskScope | undefined>;
  /**
   * A known task's scope and the task itself, whoever asks, in one read: scopeOf and then its owner's get, where a
   * call checks the task is the caller's and then builds on it (a message continuing it, task-scope.ts).
   */
  scopedTask(taskId: string): Promise<(TaskScope & { task: Task | undefined }) | undefined>;
  /**
   * Owner of a known context (the owner of its first recorded task). Kept beyond the context's tasks,
   * for `contextOwnerTtl` (context-owner.ts): the agent may still hold the conversation.
   */
  contextOwner(contextId: string): Promise<string | undefined>;
  /**
   * Owner and tenant of a known context, in the one read contextOwner costs: a context is its owner's in
   * the tenant it was opened under (its first recorded task's), as a task is. No tenant: one recorded
   * without it (by a release of before context tenants, on Redis), until its owner's next write there
   * records the tenant of that write.
   */
  contextScope(contextId: string): Promise<ContextScope | undefined>;
  /**
   * The context's scope, recorded as `claim` first when none is (one atomic step, so of two callers naming
   * a new context at once one owns it): a message into a context the registry does not know claims it before
   * the agent hears of it, since the agent keeps the conversation even when the turn ends with nothing
   * recorded (an error answer, a timeout, a replica gone mid-turn). Renewed and kept as any context's owner.
   */
  claimContext(contextId: string, claim: TaskScope): Promise<ContextScope>;
  /**
   * ListTasks for one owner, in the tenant the request names (none: the default tenant, as a2a-js 1.x
   * lists; filters, order, keyset paging; see query.ts).
   */
  list(request: ListTasksRequest, owner: string): Promise<ListTasksResponse>;
  /**
   * The most recently updated task of a context for this owner, whatever its tenant, with the tenant it
   * was recorded under: the lanes are per context id (docs/core.md, Tenants), since an agent that ignores
   * tenants keeps one conversation per context id, so a turn left running under one tenant keeps the
   * context busy under every other; the agent is asked about the task in its own tenant.
   */
  latestInContext(contextId: string, owner: string): Promise<TaskInScope | undefined>;
  /** False while the store cannot be reached (Redis down or reconnecting) or refuses writes; absent: always reachable (memory). */
  reachable?(): boolean;
  /**
   * True while the store is known not to take writes (its Redis went away and is being reconnected to, or
   * refuses writes); not while its first connection is still being made. Absent: never (memory).
   */
  outOfReach?(): boolean;
  /** Settles once its first connection was made or failed (redis/first-attempt.ts); absent: none to make (memory). */
  firstConnectionTried?(): Promise<void>;
  /**
   * `flush` is called by close(), which waits for it before the store lets go of its connection: the task writer's
   * writes still waiting for the store (a Redis outage) are tried one last time (task-writer.ts). Absent: a store
   * whose writes never wait (memory).
   */
  beforeClose?(flush: () => Promise<void>): void;
  close(): Promise<void>;
}

/**
 * Data kept per task elsewhere (push configs) must go when the task does. How depends on where tasks
 * are dropped, so each registry offers exactly one of these two, named by `drops`:
 */

/** A registry that drops tasks in this process (memory: LRU eviction, idle expiry) reports each drop. */
export interface ReportsDrops {
  readonly drops: 'reported';
  /** Called with each dropped task (`close()` is not a drop). Returns the unsubscribe. */
  onEvicted(listener: (taskId: string) => void): () => void;
}

/** Redis expires tasks inside Redis and tells no one: linked keys get the task's idle TTL on every write instead. */
export interface ExpiresLinkedKeys {
  readonly drops: 'expire-linked';
  /** The key `<keyPrefix><taskId>` expires together with the task. */
  expireWithTasks(keyPrefix: string): void;
}

/** The registry the gateway runs on: the task store plus its one way of letting per-task data follow its tasks. */
export type TaskRegistry = TaskStore & (ReportsDrops | ExpiresLinkedKeys);

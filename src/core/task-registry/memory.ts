import { type ListTasksRequest, type ListTasksResponse, type StreamResponse, type Task } from '../../model/index.js';
import { batchTaskId, boundHistory, foldEvents, unlessReopened } from './fold.js';
import { contextOwnerTtl } from './context-owner.js';
import { FairLru } from '../fair-lru.js';
import { IdGroups } from './id-groups.js';
import { taskBytes } from './task-bytes.js';
import { tenantOf } from '../tenants.js';
import { afterKeyOf, decodePageToken, encodePageToken, listEntry, pageSizeOf, sortMember } from './query.js';
import { ScopeTasks, scopePage } from './scope-tasks.js';
import type { ContextScope, ReportsDrops, TaskInScope, TaskMeta, TaskRecord, TaskScope, TaskStore } from './types.js';

export interface MemoryTaskRegistryOptions {
  /** Upper bound of stored tasks; beyond it goes the least recently used task of the principal holding the most (fair-lru.ts). */
  maxTasks: number;
  /**
   * Upper bound of the heap the stored tasks hold, as `taskBytes` estimates it; tasks are evicted beyond
   * it, as beyond `maxTasks`. A count alone does not bound memory: iac-code's tasks carry up to
   * `historyLimit` messages with tool output each. A task larger than the whole budget is still kept,
   * alone. Absent: no bound but the count.
   */
  maxBytes?: number;
  /** A task not written for this long is dropped (0: never). */
  idleTtlMs: number;
  /** How long a context's owner is remembered past its tasks (see contextOwnerTtl); absent: as long as they live. */
  contextOwnerTtlMs?: number;
  historyLimit: number;
  /** A caller's raw parts past this many bytes are not kept in history (history-parts.ts); absent: all are. */
  historyPartMaxBytes?: number;
}

const NO_IDS: readonly string[] = [];

/**
 * The index key of an owner's tasks in one tenant: the owner alone for the default tenant. Principals hold
 * no NUL (surfaces/shared/principal.ts), so no owner's key is another's under a tenant.
 */
const scopeKey = (owner: string, tenant: string): string => (tenant === '' ? owner : `${owner}\u0000${tenant}`);

/**
 * Process-local registry: tasks in a cache fair per principal (bounded count and bytes, idle TTL) plus
 * indexes per owner and tenant (the scope) and per owner and context (whatever the tenant: a context's
 * latest task is the owner's, docs/core.md, Tenants), that the cache's removal hook keeps consistent with
 * evictions and expiries. The scope's tasks are kept in ListTasks order (scope-tasks.ts): a page reads its own
 * tasks, not all of the caller's (a key may hold all of `maxTasks`, and a sort of them all held the event loop).
 */
export function createMemoryTaskRegistry(options: MemoryTaskRegistryOptions): TaskStore & ReportsDrops {
  const byScope = new Map<string, ScopeTasks>();
  // Owner, then context, as before tenants (a context's tasks in one tenant are few to filter): no key string is built per context.
  const byContext = new Map<string, IdGroups>();
  // Context owners (and the tenant each context was opened under) are a cache of their own, twice as many
  // as tasks (at least 1,000: an entry is an id and a small scope object), so a context's owner outlives
  // its tasks (evicted, expired) while the agent may still hold its conversation. Fair per principal, not
  // per scope (a caller names any tenant): another caller's flood of contexts pushes out its own, so it
  // cannot make the registry forget a context and then continue that conversation.
  const contextTtl = contextOwnerTtl(options.idleTtlMs, options.contextOwnerTtlMs);
  const contextOwners = new FairLru<string, TaskScope>({ max: Math.max(2 * options.maxTasks, 1_000), ttl: contextTtl });
  // A count, not a clock: "latest in a context" is exact within one millisecond, and a small integer is
  // kept in the record itself where a fractional time would be a heap number of its own per task.
  let writes = 0;

  const maxBytes = options.maxBytes;
  const evictionListeners = new Set<(taskId: string) => void>();
  // Fair per principal as the context owners are: another caller's flood of tasks pushes out its own.
  const cache = new FairLru<string, TaskRecord>({
    max: options.maxTasks,
    ...(maxBytes ? { maxSize: maxBytes } : {}),
    ttl: options.idleTtlMs,
    // Replacements are re-indexed by write(); every other removal (evict, expire, delete) unindexes.
    onRemove: (record, id, reason) => {
      unindex(record);
      // 'delete' is close() or live() dropping a stale task; live() reports the latter itself.
      if (reason === 'evict' || reason === 'expire') reportEvicted(id);
    },
  });

  function reportEvicted(taskId: string): void {
    for (const listener of evictionListeners) {
      try {
        listener(taskId);
      } catch {
        // A listener's failure must not break the cache operation that evicted the task.
      }
    }
  }

  /** Place a task where ListTasks finds it; by its sort member, which each new status timestamp moves. */
  function listIndex(record: TaskRecord): void {
    const { task } = record;
    const scope = scopeKey(record.owner, record.tenant);
    let tasks = byScope.get(scope);
    if (!tasks) byScope.set(scope, (tasks = new ScopeTasks()));
    tasks.add(task.id, sortMember(task), task.status.state, task.contextId);
  }

  function listUnindex(record: TaskRecord): void {
    const scope = scopeKey(record.owner, record.tenant);
    const tasks = byScope.get(scope);
    tasks?.remove(record.task.id, record.task.status.state, record.task.contextId);
    if (tasks?.size === 0) byScope.delete(scope);
  }

  function index(record: TaskRecord): void {
    const { owner, task } = record;
    listIndex(record);
    if (!task.contextId) return;
    let contexts = byContext.get(owner);
    if (!contexts) byContext.set(owner, (contexts = new IdGroups()));
    contexts.add(task.contextId, task.id);
    // The first owner keeps the context, in the tenant it began there; each task it begins there, in that
    // tenant, renews the context's time.
    const current = contextOwners.get(task.contextId);
    if (current === undefined) contextOwners.set(task.contextId, { owner, tenant: record.tenant }, owner);
    else if (current.owner === owner && current.tenant === record.tenant) contextOwners.set(task.contextId, current, owner);
  }

  function unindex(record: TaskRecord): void {
    const { owner, task } = record;
    listUnindex(record);
    if (!task.contextId) return;
    const contexts = byContext.get(owner);
    contexts?.remove(task.contextId, task.id);
    if (contexts?.size === 0) byContext.delete(owner);
  }

  function write(task: Task, meta: TaskMeta): void {
    const previous = cache.peek(task.id, { allowStale: true });
    const record: TaskRecord = { task, owner: meta.owner, upstream: meta.upstream, tenant: tenantOf(meta), written: ++writes };
    // Scope and context place a task in the indexes, its status in ListTasks order: most writes (a stream's
    // artifact chunks) leave all three as they were, and moving a task in a large scope is not free.
    const moved = !previous || previous.owner !== record.owner || previous.tenant !== record.tenant || previous.task.contextId !== task.contextId;
    // A new status (state or timestamp) moves the task in ListTasks order only; any other write makes it the
    // scope's most recently written (dropStale).
    const relisted = !moved && (previous.task.status.state !== task.status.state || previous.task.status.timestamp !== task.status.timestamp);
    if (previous && moved) unindex(previous);
    if (relisted) listUnindex(previous);
    cache.set(task.id, record, record.owner, maxBytes ? Math.min(Math.max(taskBytes(task), 1), maxBytes) : 1);
    if (moved) index(record);
    else if (relisted) listIndex(record);
    else byScope.get(scopeKey(record.owner, record.tenant))?.touch(task.id);
  }

  /**
   * Drop the scope's tasks the idle TTL made stale, so a listing counts only live ones. They are the least
   * recently written (every write sets the TTL's time and re-inserts the id), so this stops at the first live one.
   */
  function dropStale(scope: string): void {
    if (options.idleTtlMs <= 0) return;
    const tasks = byScope.get(scope);
    if (!tasks) return;
    for (const id of tasks.idsByWrite()) {
      if (cache.peek(id)) return;
      live(id);
    }
  }

  /** A record that is still alive; a stale one is deleted here, which unindexes it. */
  function live(taskId: string): TaskRecord | undefined {
    const record = cache.peek(taskId);
    if (record) return record;
    if (cache.delete(taskId)) reportEvicted(taskId);
    return undefined;
  }

  /** The latest live task of the owner's in the context, in any tenant (docs/core.md, Tenants). */
  async function latestInContext(contextId: string, owner: string): Promise<TaskInScope | undefined> {
    let latest: TaskRecord | undefined;
    // The group's ids are a copy (IdGroups.ids): live() may unindex while this goes through them.
    for (const id of byContext.get(owner)?.ids(contextId) ?? NO_IDS) {
      const record = live(id);
      if (record && record.owner === owner && (!latest || record.written > latest.written)) latest = record;
    }
    return latest && { task: latest.task, tenant: latest.tenant };
  }

  /** A stored task that `meta` may not write: another owner's, or one of another tenant. */
  const foreign = (existing: TaskRecord | undefined, meta: TaskMeta): boolean =>
    existing !== undefined && (existing.owner !== meta.owner || existing.tenant !== tenantOf(meta));

  async function applyAll(events: readonly StreamResponse[], meta: TaskMeta): Promise<Task | undefined> {
    const taskId = batchTaskId(events);
    if (!taskId) return undefined;
    const existing = cache.get(taskId);
    if (foreign(existing, meta)) return undefined;
    const next = unlessReopened(existing?.task, foldEvents(existing?.task, events, options.historyLimit, options.historyPartMaxBytes));
    if (!next) return undefined;
    write(next, existing ?? meta);
    return next;
  }

  return {
    historyLimit: options.historyLimit,
    apply: (event: StreamResponse, meta: TaskMeta) => applyAll([event], meta),
    applyAll,

    async put(task: Task, meta: TaskMeta): Promise<void> {
      const existing = cache.get(task.id);
      if (foreign(existing, meta)) return;
      const next = unlessReopened(existing?.task, boundHistory(task, options.historyLimit, options.historyPartMaxBytes));
      if (next) write(next, existing ?? meta);
    },

    async get(taskId: string, owner: string): Promise<Task | undefined> {
      const record = cache.get(taskId);
      return record && record.owner === owner ? record.task : undefined;
    },

    async ownerOf(taskId: string): Promise<string | undefined> {
      return cache.get(taskId)?.owner;
    },

    async scopeOf(taskId: string): Promise<TaskScope | undefined> {
      const record = cache.get(taskId);
      return record && { owner: record.owner, tenant: record.tenant };
    },

    async scopedTask(taskId: string): Promise<(TaskScope & { task: Task }) | undefined> {
      const record = cache.get(taskId);
      return record && { owner: record.owner, tenant: record.tenant, task: record.task };
    },

    async contextOwner(contextId: string): Promise<string | undefined> {
      return contextOwners.get(contextId)?.owner;
    },

    async contextScope(contextId: string): Promise<ContextScope | undefined> {
      return contextOwners.get(contextId);
    },

    async claimContext(contextId: string, claim: TaskScope): Promise<ContextScope> {
      const current = contextOwners.get(contextId);
      if (current !== undefined) return current;
      const scope = { owner: claim.owner, tenant: claim.tenant };
      contextOwners.set(contextId, scope, claim.owner);
      return scope;
    },

    async list(request: ListTasksRequest, owner: string): Promise<ListTasksResponse> {
      const pageSize = pageSizeOf(request);
      const cursor = decodePageToken(request.pageToken);
      const afterKey = afterKeyOf(request);
      const scope = scopeKey(owner, tenantOf(request));
      dropStale(scope);
      const { rows, hasMore, total } = scopePage(
        byScope.get(scope),
        { pageSize, cursor, afterKey, status: request.status, contextId: request.contextId },
        (id) => live(id)?.task,
      );
      const last = rows.at(-1);
      return {
        tasks: rows.map((row) => listEntry(row.task, request)),
        nextPageToken: hasMore && last ? encodePageToken(last.member) : '',
        pageSize,
        totalSize: total,
      };
    },

    latestInContext,

    drops: 'reported',

    onEvicted(listener: (taskId: string) => void): () => void {
      evictionListeners.add(listener);
      return () => evictionListeners.delete(listener);
    },

    async close(): Promise<void> {
      cache.clear();
      byScope.clear();
      byContext.clear();
      contextOwners.clear();
    },
  };
}

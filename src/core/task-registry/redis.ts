import type { Redis } from 'ioredis';
import { watchRedis, type RedisWatchLogger } from '../../observability/redis-errors.js';
import type { ListTasksRequest, ListTasksResponse, StreamResponse, Task } from '../../model/index.js';
import { batchTaskId, boundHistory, foldEvents } from './fold.js';
import { afterKeyOf, decodePageToken, encodePageToken, listEntry, memberTaskId, pageSizeOf } from './query.js';
import { contextOwnerTtl } from './context-owner.js';
import { CLAIM_CONTEXT_SCRIPT, LATEST_IN_CONTEXT_SCRIPT, PRUNE_SCRIPT } from './redis-scripts.js';
import { taskKept, type TaskFields } from './redis-task-fields.js';
import { listFilter, parseDoc, registryKeys, type LoadFilter } from './redis-keys.js';
import { tenantOf } from '../tenants.js';
import type { ContextScope, ExpiresLinkedKeys, TaskInScope, TaskMeta, TaskScope, TaskStore } from './types.js';
import { closeRedis, connectRedis, redisScript, requestPathRedis, type RedisTarget } from '../../redis/connection.js';
import { watchWriteRefusals } from './write-refusals.js';
import { listedMembers } from './redis-list-members.js';
import { firstAttemptSettled, LOST } from '../../redis/first-attempt.js';
import { createRedisTaskWrites } from './redis-task-writes.js';

export interface RedisTaskRegistryOptions {
  /** A shared client (not closed by close()); or `url` to let the registry own one. */
  redis?: Redis;
  url?: RedisTarget;
  /** How long a command of its own connection may take before it fails (`redis-command-timeout-ms`; absent or 0: no bound). */
  commandTimeoutMs?: number;
  /** Key prefix, e.g. 'a2a-bridge:'. */
  prefix: string;
  /** A task not written for this long expires (0: never). */
  idleTtlMs: number;
  /** How long a context's owner is remembered past its tasks (see contextOwnerTtl); absent: as long as they live. */
  contextOwnerTtlMs?: number;
  historyLimit: number;
  /** A caller's raw parts past this many bytes are not kept in history (history-parts.ts); absent: all are. */
  historyPartMaxBytes?: number;
  /** Told when the connection fails (at most every 30 s) and when it is ready again (watchRedis). */
  logger?: RedisWatchLogger;
}

/** LATEST_IN_CONTEXT_SCRIPT's answer: the fields of the task the pointer names, or the context's index without one. */
type LatestReply = [pointer: 1, fields: TaskFields] | [pointer: 0, members: string[]];

const PRUNE_COMMAND = 'a2aBridgePruneTasks';
const CLAIM_CONTEXT_COMMAND = 'a2aBridgeClaimContext';
const LATEST_IN_CONTEXT_COMMAND = 'a2aBridgeLatestInContext';
const PRUNE_BATCH = 500;

/**
 * Registry shared by any number of gateway replicas through one Redis. Writes are optimistic:
 * fold locally, then a Lua compare-and-set on the task's version that also moves its index
 * entries; on a conflict the script returns the current state and the fold is retried. The last
 * state this process wrote is cached, so an uncontended event costs one round trip.
 */
export function createRedisTaskRegistry(options: RedisTaskRegistryOptions): TaskStore & ExpiresLinkedKeys {
  const ownsClient = !options.redis;
  const redis = options.redis ?? connectRedis(options.url ?? 'redis://127.0.0.1:6379', requestPathRedis(options.commandTimeoutMs ?? 0));
  // Counted, and logged at most every 30 s: a failing command surfaces in the call that needed it, without the cause.
  watchRedis(redis, { store: 'task-registry', logger: options.logger });
  const pruneScript = redisScript(redis, PRUNE_COMMAND, 3, PRUNE_SCRIPT);
  const claimContextScript = redisScript(redis, CLAIM_CONTEXT_COMMAND, 2, CLAIM_CONTEXT_SCRIPT);
  const latestPointedScript = redisScript(redis, LATEST_IN_CONTEXT_COMMAND, 2, LATEST_IN_CONTEXT_SCRIPT);
  const refusals = watchWriteRefusals(redis, `${options.prefix}ready-probe`);

  // An owner's tasks in a tenant (a scope) are indexed apart; the default tenant's where an owner's were before.
  const keys = registryKeys(options.prefix);

  /** expireWithTasks(): prefixes of keys that share each task's TTL. */
  const linkedPrefixes: string[] = [];
  /** beforeClose(): what close() waits for first. */
  const flushes: Array<() => Promise<void>> = [];

  const contextTtl = contextOwnerTtl(options.idleTtlMs, options.contextOwnerTtlMs);
  const { mutate, forgetLastWritten } = createRedisTaskWrites({ redis, refusals, keys, linkedPrefixes, idleTtlMs: options.idleTtlMs, contextTtl });

  async function prune(scope: string): Promise<void> {
    for (let round = 0; round < 10; round++) {
      const examined = Number(await refusals.read(pruneScript(`${scope}idx`, `${scope}exp`, keys.all(scope), scope, keys.taskPrefix, PRUNE_BATCH)));
      if (examined < PRUNE_BATCH) return;
    }
  }

  /**
   * Tasks (in the given order) that still exist and match `filter`, with their tenant and write time in µs.
   * The stored task is checked, not only the index it was found in: a replica of before tenants writes a
   * tenant's task into the default tenant's indexes, leaving the tenant's status and context entries as
   * they were (the document is read anyway, so this costs no round trip).
   */
  async function loadTasks(ids: string[], filter: LoadFilter): Promise<Array<TaskInScope & { updatedMicros: number }>> {
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hmget(keys.task(id), 'd', 'o', 'u', 'n');
    const replies = (await refusals.read(pipeline.exec())) ?? [];
    const tasks: Array<TaskInScope & { updatedMicros: number }> = [];
    for (const [error, value] of replies) {
      if (error) throw error;
      const task = taskKept(value as TaskFields, filter);
      if (task) tasks.push(task);
    }
    return tasks;
  }

  async function scopeOf(taskId: string): Promise<TaskScope | undefined> {
    const [owner, tenant] = await refusals.read(redis.hmget(keys.task(taskId), 'o', 'n'));
    return owner === null || owner === undefined ? undefined : { owner, tenant: tenant ?? '' };
  }

  async function latestInContext(contextId: string, owner: string): Promise<TaskInScope | undefined> {
    // One task read, not the whole context's, in the script that reads its pointer: every message that names a context asks.
    const index = keys.context(keys.owner(owner), contextId);
    const reply = (await refusals.read(latestPointedScript(keys.latest(owner, contextId), index, keys.taskPrefix))) as LatestReply;
    const pointed = reply[0] === 1 ? taskKept(reply[1], { owner, contextId }) : undefined;
    if (pointed) return { task: pointed.task, tenant: pointed.tenant };
    // Written before the pointer existed, or its task is gone: find the latest among the context's tasks
    // in the default tenant's index (where every task was before tenants; a tenant's always had the pointer).
    // Without a pointer the script gave them; past a pointer to no task of the context's they are read now.
    const members = reply[0] === 0 ? reply[1] : await refusals.read(redis.zrevrangebylex(index, '+', '-'));
    let latest: (TaskInScope & { updatedMicros: number }) | undefined;
    for (const candidate of await loadTasks(members.map(memberTaskId), { owner, contextId })) {
      if (!latest || candidate.updatedMicros > latest.updatedMicros) latest = candidate;
    }
    return latest && { task: latest.task, tenant: latest.tenant };
  }

  async function applyAll(events: readonly StreamResponse[], meta: TaskMeta, writeId?: string): Promise<Task | undefined> {
    const taskId = batchTaskId(events);
    if (!taskId) return undefined;
    return mutate(taskId, meta, (current) => foldEvents(current, events, options.historyLimit, options.historyPartMaxBytes), writeId);
  }

  return {
    historyLimit: options.historyLimit,
    apply: (event: StreamResponse, meta: TaskMeta) => applyAll([event], meta),
    applyAll,

    async put(task: Task, meta: TaskMeta): Promise<void> {
      await mutate(task.id, meta, () => boundHistory(task, options.historyLimit, options.historyPartMaxBytes));
    },

    async get(taskId: string, owner: string): Promise<Task | undefined> {
      const [doc, taskOwner] = await refusals.read(redis.hmget(keys.task(taskId), 'd', 'o'));
      return taskOwner === owner ? parseDoc(doc)?.task : undefined;
    },

    async ownerOf(taskId: string): Promise<string | undefined> {
      return (await scopeOf(taskId))?.owner;
    },

    scopeOf,

    async scopedTask(taskId: string): Promise<(TaskScope & { task: Task | undefined }) | undefined> {
      const [doc, owner, tenant] = await refusals.read(redis.hmget(keys.task(taskId), 'd', 'o', 'n'));
      return owner === null || owner === undefined ? undefined : { owner, tenant: tenant ?? '', task: parseDoc(doc)?.task };
    },

    async contextOwner(contextId: string): Promise<string | undefined> {
      return (await refusals.read(redis.get(keys.contextOwner(contextId)))) ?? undefined;
    },

    async contextScope(contextId: string): Promise<ContextScope | undefined> {
      const [owner, tenant] = await refusals.read(redis.mget(keys.contextOwner(contextId), keys.contextTenant(contextId)));
      return owner === null || owner === undefined ? undefined : { owner, tenant: tenant ?? undefined };
    },

    async claimContext(contextId: string, claim: TaskScope): Promise<ContextScope> {
      const keysOf = [keys.contextOwner(contextId), keys.contextTenant(contextId)];
      // A write that a Redis out of reach fails is told the caller as a read's failure is: a refusal for now (503).
      const claimed = refusals.track(claimContextScript(...keysOf, claim.owner, claim.tenant, contextTtl));
      const [owner, tenant] = (await refusals.read(claimed)) as [string, string | null];
      return { owner, tenant: tenant ?? undefined };
    },

    async list(request: ListTasksRequest, owner: string): Promise<ListTasksResponse> {
      const pageSize = pageSizeOf(request);
      const cursor = decodePageToken(request.pageToken);
      const afterKey = afterKeyOf(request);
      const tenant = tenantOf(request);
      const scope = keys.scope(owner, tenant);
      await prune(scope);
      // Members are `<timestamp key>|<id>` and '}' sorts above '|': this bound excludes every task stamped exactly `after`.
      const min = afterKey === undefined ? '-' : `(${afterKey}}`;
      const max = cursor === undefined ? '+' : `(${cursor}`;
      const { total, members } = await listedMembers(redis, refusals, keys, scope, request, { min, max, cursor, pageSize });
      const hasMore = members.length > pageSize;
      const page = members.slice(0, pageSize);
      const tasks = await loadTasks(page.map(memberTaskId), listFilter(owner, tenant, request));
      const last = page[page.length - 1];
      return {
        tasks: tasks.map(({ task }) => listEntry(task, request)),
        nextPageToken: hasMore && last ? encodePageToken(last) : '',
        pageSize,
        totalSize: total,
      };
    },

    latestInContext,

    reachable: () => redis.status === 'ready' && !refusals.refusing(),
    outOfReach: () => LOST.has(redis.status) || refusals.refusing(),
    firstConnectionTried: () => firstAttemptSettled(redis),

    /** Redis expires tasks without telling anyone: linked keys (`expireWithTasks`) go with them instead. */
    drops: 'expire-linked',

    expireWithTasks(keyPrefix: string): void {
      if (!linkedPrefixes.includes(keyPrefix)) linkedPrefixes.push(keyPrefix);
    },

    beforeClose: (flush: () => Promise<void>) => void flushes.push(flush),

    async close(): Promise<void> {
      // The writers' last tries need the connection.
      await Promise.allSettled(flushes.map((flush) => flush()));
      refusals.stop();
      forgetLastWritten();
      if (ownsClient) await closeRedis(redis);
    },
  };
}

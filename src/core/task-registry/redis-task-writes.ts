import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { A2AError, type Task } from '../../model/index.js';
import { unlessReopened } from './fold.js';
import { sortMember } from './query.js';
import { WRITE_SCRIPT } from './redis-scripts.js';
import { contextFragment, type RegistryKeys } from './redis-keys.js';
import { tenantOf } from '../tenants.js';
import type { TaskMeta } from './types.js';
import { redisScript } from '../../redis/connection.js';
import type { WriteRefusals } from './write-refusals.js';
import { appliedAlready, keptWith, storedDoc, versionedDoc, type Versioned } from './versioned-doc.js';

/** What a write makes of the stored task (undefined: nothing to write). */
export type Change = (current: Task | undefined) => Task | undefined;

const WRITE_COMMAND = 'a2aBridgeWriteTask';
const MAX_WRITE_ATTEMPTS = 32;

export interface RedisTaskWritesDeps {
  redis: Redis;
  refusals: WriteRefusals;
  keys: RegistryKeys;
  /** expireWithTasks(): prefixes of keys that share each task's TTL, as the registry adds them. */
  linkedPrefixes: readonly string[];
  /** A task not written for this long expires (0: never). */
  idleTtlMs: number;
  /** How long a context's owner is remembered (contextOwnerTtl). */
  contextTtl: number;
}

export interface RedisTaskWrites {
  /** Folds `change` into the stored task (compareAndSet), one write to a task at a time from this process. */
  mutate(taskId: string, meta: TaskMeta, change: Change, writeId?: string): Promise<Task | undefined>;
  /** close(): the states this process last wrote are forgotten. */
  forgetLastWritten(): void;
}

/** The registry's compare-and-set writes (createRedisTaskRegistry says how they go), and the state this process last wrote. */
export function createRedisTaskWrites(deps: RedisTaskWritesDeps): RedisTaskWrites {
  const { redis, refusals, keys, linkedPrefixes, contextTtl } = deps;
  // The key count is passed per call: keys linked by expireWithTasks() follow the eight fixed ones.
  const write = redisScript(redis, WRITE_COMMAND, 'counted', WRITE_SCRIPT);
  const writeScript: typeof write = (...args) => refusals.track(write(...args));
  const lastWritten = new LRUCache<string, Versioned & { owner: string; tenant: string }>({ max: 1000, ttl: 60_000 });

  async function readVersioned(taskId: string): Promise<Versioned | undefined> {
    const [version, doc, owner, tenant] = await refusals.read(redis.hmget(keys.task(taskId), 'v', 'd', 'o', 'n'));
    return version && owner !== null && owner !== undefined ? versionedDoc(Number(version), doc, owner, tenant ?? '') : undefined;
  }

  // Writes to one task from this process go one at a time: they would only conflict with each other.
  const localTails = new Map<string, Promise<unknown>>();
  function mutate(taskId: string, meta: TaskMeta, change: Change, writeId?: string): Promise<Task | undefined> {
    const previous = localTails.get(taskId) ?? Promise.resolve();
    const run = previous.then(
      () => compareAndSet(taskId, meta, change, writeId),
      () => compareAndSet(taskId, meta, change, writeId),
    );
    localTails.set(taskId, run);
    const forget = () => {
      if (localTails.get(taskId) === run) localTails.delete(taskId);
    };
    run.then(forget, forget);
    return run;
  }

  /**
   * Fold `change` into the stored task under compare-and-set; undefined when nothing was written. A write whose id
   * the task holds was applied already (a retry of a write that timed out here after Redis took it): the stale
   * version it starts from conflicts, and the conflict's answer, the document, holds the id. No round trip more.
   */
  async function compareAndSet(taskId: string, meta: TaskMeta, change: Change, writeId?: string): Promise<Task | undefined> {
    const tenant = tenantOf(meta);
    const scope = keys.scope(meta.owner, tenant);
    let state: Versioned = lastWritten.get(taskId) ?? (await readVersioned(taskId)) ?? { version: 0, task: undefined, upstream: meta.upstream };
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      // Another owner's task, or one of another tenant, is not written (the script checks so too).
      if (state.version > 0 && state.owner !== undefined && (state.owner !== meta.owner || (state.tenant ?? '') !== tenant)) return undefined;
      if (appliedAlready(state, writeId)) return state.task;
      // Checked against the version the script then requires: a finished state another replica wrote since
      // is a conflict, folded again here, so it is never overwritten by a running one.
      const next = unlessReopened(state.task, change(state.task));
      if (!next) return undefined;
      const upstream = state.version > 0 ? state.upstream : meta.upstream;
      const writes = keptWith(state.writes, writeId);
      const reply = (await writeScript(
        8 + linkedPrefixes.length,
        keys.task(taskId),
        `${scope}idx`,
        `${scope}exp`,
        keys.all(scope),
        keys.context(scope, next.contextId ?? ''),
        keys.status(scope, next.status.state),
        keys.contextOwner(next.contextId ?? ''),
        keys.contextTenant(next.contextId ?? ''),
        ...linkedPrefixes.map((prefix) => `${prefix}${taskId}`),
        String(state.version),
        storedDoc(next, upstream, writes),
        meta.owner,
        sortMember(next),
        next.status.state,
        contextFragment(next.contextId),
        deps.idleTtlMs,
        taskId,
        scope,
        contextTtl,
        tenant,
        keys.owner(meta.owner),
      )) as [number, number | string, string?, string?];
      if (reply[0] === 1) {
        lastWritten.set(taskId, { version: Number(reply[1]), task: next, upstream, owner: meta.owner, tenant, ...(writes ? { writes } : {}) });
        return next;
      }
      lastWritten.delete(taskId);
      if (reply[0] === -1) return undefined;
      state = versionedDoc(Number(reply[1]), reply[2], meta.owner, tenant) ?? { version: 0, task: undefined, upstream: meta.upstream };
      // Another replica keeps winning: step back a random moment so the writers stop colliding.
      if (attempt >= 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 50)));
    }
    throw A2AError.internal('Task registry write conflict');
  }

  return { mutate, forgetLastWritten: () => lastWritten.clear() };
}

import type { ListTasksRequest, Task } from '../../model/index.js';

type ListFilters = Pick<ListTasksRequest, 'contextId' | 'status'>;

/**
 * Key names of the Redis task registry under its prefix (the layout is documented whole in redis-scripts.ts).
 * Replicas of every version share one Redis, so the default tenant's keys are the ones an owner's keys were
 * before tenants were recorded, byte for byte.
 */
export interface RegistryKeys {
  /** `P t:`: what a task's hash key starts with (the prune script checks the hash exists). */
  readonly taskPrefix: string;
  task(taskId: string): string;
  /** `P o:O:`: the owner's keys, and its default tenant's scope. */
  owner(owner: string): string;
  /** The prefix of an owner's index keys in one tenant (its scope). */
  scope(owner: string, tenant: string): string;
  all(scope: string): string;
  status(scope: string, state: string): string;
  context(scope: string, contextId: string): string;
  /** The index a list without both filters pages through: the context's, the state's, or all the scope's. */
  listed(scope: string, request: ListFilters): string;
  /** The owner's task in a context written last, whatever its tenant: a context is one conversation at the agent. */
  latest(owner: string, contextId: string): string;
  contextOwner(contextId: string): string;
  /** The tenant the context was opened under, beside its owner ('' the default tenant); no key: not recorded (by a replica of before). */
  contextTenant(contextId: string): string;
}

export function registryKeys(prefix: string): RegistryKeys {
  const enc = encodeURIComponent;
  const owner = (name: string): string => `${prefix}o:${enc(name)}:`;
  const keys: RegistryKeys = {
    taskPrefix: `${prefix}t:`,
    task: (taskId) => `${prefix}t:${taskId}`,
    owner,
    // No default key starts `t:`, and enc() leaves no ':' in a name: no tenant's scope is another key's.
    scope: (name, tenant) => `${owner(name)}${tenant === '' ? '' : `t:${enc(tenant)}:`}`,
    all: (scope) => `${scope}all`,
    status: (scope, state) => `${scope}s:${state}`,
    context: (scope, contextId) => `${scope}c:${enc(contextId)}`,
    listed: (scope, { contextId, status }) => (contextId ? keys.context(scope, contextId) : status ? keys.status(scope, status) : keys.all(scope)),
    latest: (name, contextId) => `${owner(name)}l:${enc(contextId)}`,
    contextOwner: (contextId) => `${prefix}ctx:${enc(contextId)}`,
    contextTenant: (contextId) => `${prefix}ctxn:${enc(contextId)}`,
  };
  return keys;
}

/** A task hash's `d` field: the task and the upstream it lives on. */
export function parseDoc(doc: string | null | undefined): { task: Task; upstream: string } | undefined {
  if (!doc) return undefined;
  return JSON.parse(doc) as { task: Task; upstream: string };
}

/** The context fragment the write script appends to `c:` and `l:` ('' for a task without a context). */
export const contextFragment = (contextId: string | undefined): string => (contextId ? encodeURIComponent(contextId) : '');

/**
 * Which tasks read by id to keep: the owner's, and where given, of this tenant (absent: any), context and
 * state. Checked on the record, since an index entry may be stale: a replica of before tenants writes a
 * tenant's task into the default tenant's indexes and leaves the tenant's entries as they were.
 */
export interface LoadFilter {
  owner: string;
  tenant?: string;
  contextId?: string;
  status?: string;
}

export const matchesLoadFilter = ({ task, owner, tenant }: { task: Task; owner: string | null; tenant: string }, filter: LoadFilter): boolean =>
  owner === filter.owner &&
  (filter.tenant === undefined || tenant === filter.tenant) &&
  (filter.contextId === undefined || task.contextId === filter.contextId) &&
  (filter.status === undefined || task.status.state === filter.status);

/** What a list's page keeps of the tasks its index names: the scope's, in the request's context and state. */
export const listFilter = (owner: string, tenant: string, { contextId, status }: ListFilters): LoadFilter => ({
  owner,
  tenant,
  ...(contextId ? { contextId } : {}),
  ...(status ? { status } : {}),
});

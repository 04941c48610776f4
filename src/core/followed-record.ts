import { withFields, type Task } from '../model/index.js';
import type { CallContext } from './agent-port.js';
import type { TaskScope } from './task-registry/types.js';

/** The call's context handing `task` to the decorators below (CallContext.followedRecord), or handing none. */
export function withFollowedRecord(ctx: CallContext, task: Task | undefined): CallContext {
  if (task) return withFields(ctx, { followedRecord: task });
  if (ctx.followedRecord === undefined) return ctx;
  const { followedRecord: _unread, ...rest } = ctx;
  return rest;
}

/** The record a decorator above handed of `taskId`, the task the call's message continues; undefined: none, read it. */
export const followedRecordOf = (ctx: CallContext, taskId: string): Task | undefined =>
  ctx.followedRecord?.id === taskId ? ctx.followedRecord : undefined;

/**
 * The scope each handed record was read with (TaskStore.scopedTask), by the very context that hands it: task-scope.ts
 * checks the task a message continues against it rather than read the task again. Kept out of CallContext, so nothing
 * but withScopedFollowedRecord vouches for a scope, and a context made anew from a handed one (withFields) hands no
 * scope: the task is read again.
 */
const readScopes = new WeakMap<CallContext, TaskScope>();

/** The call's context handing `task` below, with the scope it was read with in the same read. */
export function withScopedFollowedRecord(ctx: CallContext, task: Task, scope: TaskScope): CallContext {
  const handing = withFields(ctx, { followedRecord: task });
  readScopes.set(handing, { owner: scope.owner, tenant: scope.tenant });
  return handing;
}

/** The record handed of `taskId` with the scope it was read with (withScopedFollowedRecord); undefined: none, read both. */
export function scopedFollowedRecordOf(ctx: CallContext, taskId: string): (TaskScope & { task: Task }) | undefined {
  const task = followedRecordOf(ctx, taskId);
  const scope = task && readScopes.get(ctx);
  return scope && { owner: scope.owner, tenant: scope.tenant, task };
}

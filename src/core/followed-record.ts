import { withFields, type Task } from '../model/index.js';
import type { CallContext } from './agent-port.js';

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

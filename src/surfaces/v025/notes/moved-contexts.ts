import type { Redis } from 'ioredis';
import { createMemoryNotes, createRedisNotes, type ConversationNotes } from './conversation-notes.js';
import { withFields, type SendMessageRequest } from '../../../model/index.js';

/**
 * The conversations the facade moved to a fresh context because iac-code refuses their own for good (gone-task.ts:
 * the context is bound to another workspace, or marked expired), by caller and the context id the caller sends. The
 * caller reads the fresh id in the answer, but a caller that keeps sending the id it began with (Bailian keeps its
 * own conversation's) would be refused again each turn and moved again, the agent forgetting the turns before every
 * time; so its next messages go to the fresh context. Best effort: a store that cannot answer leaves the message on
 * its own context, where the refusal moves it again.
 */
/** By caller and the context id a conversation was moved from: the context it goes on in (kept as long again when read). */
export type MovedContexts = ConversationNotes<string>;

/** One process's moves, bounded fairly (conversation-notes.ts); a conversation that goes on keeps its move. */
export const createMemoryMovedContexts = (options: { max: number; idleTtlMs: number }): MovedContexts =>
  createMemoryNotes<string>({ max: options.max, ttlMs: options.idleTtlMs, renewedOnRead: true });

/** Shared by every replica, on the conversation store's connection (conversation-languages.ts). */
export const createRedisMovedContexts = (redis: Redis, options: { prefix: string; ttlMs: number }): MovedContexts =>
  createRedisNotes(redis, {
    keyPrefix: `${options.prefix}moved-context:`,
    ttlMs: options.ttlMs,
    renewedOnRead: true,
    isValue: (value): value is string => typeof value === 'string',
  });

/** The caller's message sent to the context its conversation was moved to, if it was; as it is otherwise. */
export async function inMovedContext(request: SendMessageRequest, principal: string, moves: MovedContexts): Promise<SendMessageRequest> {
  const { contextId } = request.message;
  if (contextId === undefined) return request;
  const to = await moves.of(principal, contextId).catch(() => undefined);
  return to === undefined || to === contextId ? request : withFields(request, { message: withFields(request.message, { contextId: to }) });
}

/**
 * Notes a move of the conversation to `to` under the id its caller sent and the one the turn was sent under (they differ
 * once it was moved before), so that either goes on in `to`. Never fails the turn.
 */
export async function noteMove(moves: MovedContexts, principal: string, from: ReadonlyArray<string | undefined>, to: string): Promise<void> {
  const ids = new Set(from.filter((id): id is string => id !== undefined && id !== to));
  await Promise.all([...ids].map((id) => moves.note(principal, id, to).catch(() => undefined)));
}

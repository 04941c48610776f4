import type { Redis } from 'ioredis';
import { FairLru } from '../../core/fair-lru.js';
import { withFields, type SendMessageRequest } from '../../model/index.js';

/**
 * The conversations the facade moved to a fresh context because iac-code refuses their own for good (gone-task.ts:
 * the context is bound to another workspace, or marked expired), by caller and the context id the caller sends. The
 * caller reads the fresh id in the answer, but a caller that keeps sending the id it began with (Bailian keeps its
 * own conversation's) would be refused again each turn and moved again, the agent forgetting the turns before every
 * time; so its next messages go to the fresh context. Best effort: a store that cannot answer leaves the message on
 * its own context, where the refusal moves it again.
 */
export interface MovedContexts {
  /** The context the conversation goes on in, undefined when it was never moved; its note is kept as long again. */
  of(principal: string, contextId: string): Promise<string | undefined>;
  note(principal: string, from: string, to: string): Promise<void>;
}

const noteKey = (principal: string, contextId: string): string => `${principal.length}:${principal}:${contextId}`;

/** One process's moves, bounded fairly (fair-lru.ts): one caller's conversations by the thousand forget its own, never another's. */
export function createMemoryMovedContexts(options: { max: number; idleTtlMs: number }): MovedContexts {
  const moved = new FairLru<string, string>({ max: options.max, ...(options.idleTtlMs > 0 ? { ttl: options.idleTtlMs } : {}) });
  return {
    async of(principal, contextId) {
      const key = noteKey(principal, contextId);
      const to = moved.get(key);
      // Set again: a conversation that goes on in its fresh context keeps going there however long it runs.
      if (to !== undefined) moved.set(key, to, principal);
      return to;
    },
    note: async (principal, from, to) => void moved.set(noteKey(principal, from), to, principal),
  };
}

/** Shared by every replica, on the conversation store's connection (conversation-languages.ts); a failure reads as no move. */
export function createRedisMovedContexts(redis: Redis, options: { prefix: string; ttlMs: number }): MovedContexts {
  const key = (principal: string, contextId: string): string => `${options.prefix}moved-context:${noteKey(principal, contextId)}`;
  return {
    async of(principal, contextId) {
      const to = await redis.get(key(principal, contextId)).catch(() => undefined);
      if (!to) return undefined;
      await redis.pexpire(key(principal, contextId), options.ttlMs).catch(() => undefined);
      return to;
    },
    async note(principal, from, to) {
      await redis.set(key(principal, from), to, 'PX', options.ttlMs).catch(() => undefined);
    },
  };
}

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

import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { noteRedisError } from '../../observability/redis-errors.js';

/**
 * The task of each conversation's facade turn the gateway's shutdown cut (cut-turns.ts), by caller and context:
 * noted as the cut turn's stream ends, read by the conversation's next message on whichever replica it lands,
 * forgotten once that message has shown the turn's rest. Best effort: a store that cannot answer knows of no cut.
 */
export interface CutTurnNotes {
  note(principal: string, contextId: string, taskId: string): Promise<void>;
  /** The task of the conversation's cut turn whose rest its user has not read, if any. */
  cut(principal: string, contextId: string): Promise<string | undefined>;
  /** Forgets the note only while it still names `taskId`: a turn cut since keeps its own. */
  forget(principal: string, contextId: string, taskId: string): Promise<void>;
}

const conversationKey = (principal: string, contextId: string): string => `${principal.length}:${principal}:${contextId}`;

export function createMemoryCutTurnNotes(options: { max: number; idleTtlMs: number }): CutTurnNotes {
  const noted = new LRUCache<string, string>({ max: options.max, ...(options.idleTtlMs > 0 ? { ttl: options.idleTtlMs } : {}) });
  return {
    note: async (principal, contextId, taskId) => void noted.set(conversationKey(principal, contextId), taskId),
    cut: async (principal, contextId) => noted.get(conversationKey(principal, contextId)),
    async forget(principal, contextId, taskId) {
      const key = conversationKey(principal, contextId);
      if (noted.get(key) === taskId) noted.delete(key);
    },
  };
}

/** Deleted only while it still names the turn's task, in one round trip. */
const FORGET_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Shared by every replica, on the conversation store's connection (conversation-languages.ts). */
export function createRedisCutTurnNotes(redis: Redis, options: { prefix: string; ttlMs: number }): CutTurnNotes {
  const failed = (): undefined => void noteRedisError('conversation-languages');
  const key = (principal: string, contextId: string): string => `${options.prefix}conversation-cut-turn:${conversationKey(principal, contextId)}`;
  return {
    async note(principal, contextId, taskId) {
      await redis.set(key(principal, contextId), taskId, 'PX', options.ttlMs).catch(failed);
    },
    async cut(principal, contextId) {
      return (await redis.get(key(principal, contextId)).catch(failed)) ?? undefined;
    },
    async forget(principal, contextId, taskId) {
      await redis.eval(FORGET_SCRIPT, 1, key(principal, contextId), taskId).catch(failed);
    },
  };
}

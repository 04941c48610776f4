import type { Redis } from 'ioredis';
import { createMemoryNotes, createRedisNotes, type ConversationNotes, type RedisNotes } from './conversation-notes.js';

/**
 * The message that opened each conversation's latest turn, as its caller sent it: its messageId and the digest of
 * what it asked (repeated-message.ts). Noted once the turn's message left for the agent, by caller and context, and
 * read when a message comes in: the same id again (Bailian's retry of a call whose answer it lost) is that turn
 * again, not a new one (repeated-turn.ts). The caller's own message, not the one the registry records: the facade
 * may send another (a pipeline choice by its number sent as the candidate's name, a permission answer as iac-code's
 * data part), and the record keeps only a task's last `tasks.history-limit` messages, fewer than a long iac-code turn.
 *
 * One note per conversation (its latest turn) for REPEAT_WINDOW_MS at most: a retry comes within seconds or
 * minutes, and an id older than that, or of a turn before the latest, runs as a new message. Best effort: a store
 * that cannot answer knows of no turn, and the message runs as it did before this record.
 */
export interface SentTurnMessage {
  messageId: string;
  /** messageDigest of the caller's message; absent for a message that asks nothing. */
  digest?: string;
}

/** By caller and context id. */
export type SentTurnMessages = ConversationNotes<SentTurnMessage>;

/** How long a turn's message is known again: an hour, or the conversation store's idle time when shorter. */
export const REPEAT_WINDOW_MS = 3600_000;

const windowMs = (idleTtlMs: number): number => (idleTtlMs > 0 ? Math.min(idleTtlMs, REPEAT_WINDOW_MS) : REPEAT_WINDOW_MS);

/** One process's notes, bounded fairly (conversation-notes.ts). */
export const createMemorySentTurnMessages = (options: { max: number; idleTtlMs: number }): SentTurnMessages =>
  createMemoryNotes<SentTurnMessage>({ max: options.max, ttlMs: windowMs(options.idleTtlMs) });

const isSent = (value: unknown): value is SentTurnMessage =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as SentTurnMessage).messageId === 'string' &&
  ['string', 'undefined'].includes(typeof (value as SentTurnMessage).digest);

/** Shared by every replica, on the conversation store's connection (conversation-languages.ts). */
export const createRedisSentTurnMessages = (redis: Redis, options: { prefix: string; ttlMs: number }): RedisNotes<SentTurnMessage> =>
  createRedisNotes(redis, { keyPrefix: `${options.prefix}sent-turn-message:`, ttlMs: windowMs(options.ttlMs), isValue: isSent });

import type { Redis } from 'ioredis';
import type { Task } from '../../../model/index.js';
import { createMemoryNotes, createRedisNotes, type ConversationNotes } from './conversation-notes.js';
import { latestTurnMessageOf } from '../turn/latest-turn-message.js';

/**
 * The turns that went on in a fresh context, their reply opened with the words that say the agent started afresh
 * (started-afresh.ts), by caller and the fresh context's task: the id of the message that opened that turn. What the
 * agent keeps of the task holds none of the facade's words, so tasks/get, and the same message sent again after its
 * answer was lost (repeated-turn.ts), which replay the turn from the task (task-reply.ts), read here that they open
 * it, and show it as message/send and message/stream did. Only while that turn is the task's latest: the task's next
 * turns are the agent's alone. Best effort: a store that cannot answer shows the agent's reply without them.
 */
export type StartedAfreshTurns = ConversationNotes<string>;

/** One process's notes, bounded fairly (conversation-notes.ts). */
export const createMemoryStartedAfreshTurns = (options: { max: number; idleTtlMs: number }): StartedAfreshTurns =>
  createMemoryNotes<string>({ max: options.max, ttlMs: options.idleTtlMs });

/** Shared by every replica, on the conversation store's connection (conversation-languages.ts). */
export const createRedisStartedAfreshTurns = (redis: Redis, options: { prefix: string; ttlMs: number }): StartedAfreshTurns =>
  createRedisNotes(redis, {
    keyPrefix: `${options.prefix}started-afresh:`,
    ttlMs: options.ttlMs,
    isValue: (value): value is string => typeof value === 'string',
  });

/**
 * Whether the task's latest turn is one that started afresh. A turn moved to a fresh context opens its task there, so
 * only a task whose latest turn is its first is looked up: a task polled on later turns costs no read of the store.
 */
export async function latestTurnStartedAfresh(notes: StartedAfreshTurns | undefined, principal: string, task: Task): Promise<boolean> {
  const history = task.history ?? [];
  const latest = latestTurnMessageOf(task);
  if (!notes || !latest || history.find((message) => message.role === 'ROLE_USER') !== latest) return false;
  const noted = await notes.of(principal, task.id).catch(() => undefined);
  return noted === latest.messageId;
}

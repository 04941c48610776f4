import type { Redis } from 'ioredis';
import { FairLru } from '../../../core/fair-lru.js';
import type { KeyedRead } from './keyed-note-reads.js';

/**
 * A small note per caller and id (a task's, a conversation's) that the facade keeps beside the conversation's language
 * (conversation-languages.ts): the files a task held as a turn began, the message of a conversation's latest turn, the
 * fresh context a conversation moved to. One shape for all of them: in one process, or shared by every replica in
 * Redis. Best effort: a store that cannot answer, or a value that does not read as one (another release's), is no note.
 */
export interface ConversationNotes<T> {
  note(principal: string, id: string, value: T): Promise<void>;
  of(principal: string, id: string): Promise<T | undefined>;
}

export interface NoteOptions {
  /** How long a note is kept (0: as long as the bound lets it). */
  ttlMs: number;
  /** Whether reading a note keeps it as long again (a conversation that goes on keeps its note). */
  renewedOnRead?: boolean;
}

const noteKey = (principal: string, id: string): string => `${principal.length}:${principal}:${id}`;

/** One process's notes, bounded fairly (fair-lru.ts): one caller's notes by the thousand forget its own, never another's. */
export function createMemoryNotes<T>(options: NoteOptions & { max: number }): ConversationNotes<T> {
  const kept = new FairLru<string, T>({ max: options.max, ...(options.ttlMs > 0 ? { ttl: options.ttlMs } : {}) });
  return {
    note: async (principal, id, value) => void kept.set(noteKey(principal, id), value, principal),
    async of(principal, id) {
      const key = noteKey(principal, id);
      const value = kept.get(key);
      if (value !== undefined && options.renewedOnRead) kept.set(key, value, principal);
      return value;
    },
  };
}

/** Notes in Redis, each also readable with others in one round trip (keyed-note-reads.ts). */
export interface RedisNotes<T> extends ConversationNotes<T> {
  /** The note's read as readTogether takes it; it does not renew a note renewed on read. */
  keyed(principal: string, id: string): KeyedRead<T>;
}

/** Shared by every replica, under `keyPrefix`, on the conversation store's connection; a failure reads as no note. */
export function createRedisNotes<T>(
  redis: Redis,
  options: NoteOptions & { keyPrefix: string; isValue: (value: unknown) => value is T },
): RedisNotes<T> {
  const key = (principal: string, id: string): string => `${options.keyPrefix}${noteKey(principal, id)}`;
  const read = (text: string | null | undefined): T | undefined => {
    if (!text) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    return options.isValue(value) ? value : undefined;
  };
  return {
    async note(principal, id, value) {
      await redis.set(key(principal, id), JSON.stringify(value), 'PX', options.ttlMs).catch(() => undefined);
    },
    async of(principal, id) {
      const value = read(await redis.get(key(principal, id)).catch(() => undefined));
      if (value !== undefined && options.renewedOnRead) await redis.pexpire(key(principal, id), options.ttlMs).catch(() => undefined);
      return value;
    },
    keyed: (principal, id) => ({ key: key(principal, id), read }),
  };
}

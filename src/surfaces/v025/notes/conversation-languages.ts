import type { GatewayConfig } from '../../../config/schema.js';
import { watchRedis, type RedisWatchLogger } from '../../../observability/redis-errors.js';
import { FairLru } from '../../../core/fair-lru.js';
import { connectRedis, type RedisTarget } from '../../../redis/connection.js';
import { redisEndpoint } from '../../../redis/tls.js';
import { FACADE_LANGUAGES, type FacadeLanguage } from '../reply/words.js';
import { createLocalCutTurnNotes, createRedisCutTurnNotes, type CutTurnNote, type CutTurnNotes } from './cut-turn-notes.js';
import { readTogether, type KeyedRead } from './keyed-note-reads.js';
import { createMemoryFilesBeforeTurn, createRedisFilesBeforeTurn, type FilesBeforeTurn } from '../turn/files-before-turn.js';
import { createMemorySentTurnMessages, createRedisSentTurnMessages, type SentTurnMessage, type SentTurnMessages } from './sent-turn-messages.js';
import { createMemoryMovedContexts, createRedisMovedContexts, type MovedContexts } from './moved-contexts.js';
import { createMemoryStartedAfreshTurns, createRedisStartedAfreshTurns, type StartedAfreshTurns } from './started-afresh-turns.js';

/**
 * The language each conversation's caller last wrote in, by caller and context (turn-language.ts): a
 * conversation's history can be cut short or hold words the gateway put there. Best effort: a store that
 * cannot answer leaves the turn to its history, and never fails it.
 */
export interface ConversationLanguages {
  of(principal: string, contextId: string | undefined): Promise<FacadeLanguage | undefined>;
  note(principal: string, contextId: string | undefined, language: FacadeLanguage): Promise<void>;
  /** The conversation's turn a shutdown cut (cut-turn-notes.ts), kept beside its language in the same store. */
  cutTurns: CutTurnNotes;
  /** The files each task held before its latest follow-up turn (files-before-turn.ts), kept in the same store. */
  filesBeforeTurn: FilesBeforeTurn;
  /** The message of each conversation's latest turn, as its caller sent it (sent-turn-messages.ts), kept in the same store. */
  sentTurnMessages: SentTurnMessages;
  /** The conversations moved to a fresh context iac-code takes (moved-contexts.ts), kept in the same store. */
  movedContexts: MovedContexts;
  /** The turns a fresh context's task opened with the words that the agent started afresh (started-afresh-turns.ts), kept in the same store. */
  startedAfreshTurns: StartedAfreshTurns;
  /**
   * The conversation's notes a turn reads as it begins (turn-notes.ts), in one round trip to a shared store. Absent
   * in one process's memory, where each is read on its own for nothing.
   */
  readTogether?(principal: string, contextId: string): Promise<ConversationNotesRead>;
  close(): Promise<void>;
}

/** The notes of a conversation a turn begins with: its cut turn's, its latest turn's message, its language. */
export interface ConversationNotesRead {
  cut: CutTurnNote | undefined;
  sent: SentTurnMessage | undefined;
  language: FacadeLanguage | undefined;
}

export interface ConversationLanguagesOptions {
  /** Conversations remembered (memory). */
  max: number;
  /** A conversation not written in for this long is forgotten (0: after a year in Redis, never in memory). */
  idleTtlMs: number;
  /** Where the cut turns' notes outlive the process (`persistence-dir`); none: in memory only (cut-turn-notes.ts). */
  dir?: string;
  logger?: RedisWatchLogger;
}

const key = (principal: string, contextId: string): string => `${principal.length}:${principal}:${contextId}`;

/** Bounded fairly (fair-lru.ts): one caller opening conversations by the thousand forgets its own, never another's. */
export function createMemoryConversationLanguages(options: ConversationLanguagesOptions): ConversationLanguages {
  const chosen = new FairLru<string, FacadeLanguage>({ max: options.max, ...(options.idleTtlMs > 0 ? { ttl: options.idleTtlMs } : {}) });
  const cutTurns = createLocalCutTurnNotes(options);
  return {
    of: async (principal, contextId) => (contextId ? chosen.get(key(principal, contextId)) : undefined),
    note: async (principal, contextId, language) => void (contextId && chosen.set(key(principal, contextId), language, principal)),
    cutTurns,
    filesBeforeTurn: createMemoryFilesBeforeTurn(options),
    sentTurnMessages: createMemorySentTurnMessages(options),
    movedContexts: createMemoryMovedContexts(options),
    startedAfreshTurns: createMemoryStartedAfreshTurns(options),
    async close() {
      await cutTurns.settled();
      chosen.clear();
    },
  };
}

const isLanguage = (value: string | null | undefined): value is FacadeLanguage => (FACADE_LANGUAGES as readonly unknown[]).includes(value);

/** Shared by every replica: a conversation's turns may land on any of them. */
export function createRedisConversationLanguages(options: {
  url: RedisTarget;
  prefix: string;
  idleTtlMs: number;
  logger?: RedisWatchLogger;
}): ConversationLanguages {
  // Bounded: a Redis that hangs must not hold the turn up longer than it takes to read its history instead.
  const redis = connectRedis(options.url, { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: 500 });
  // A command that fails reads as nothing; watchRedis counts what Redis failed (the connection, a command
  // without an answer in time) and logs it at most every 30 s.
  const failed = (): undefined => undefined;
  watchRedis(redis, { store: 'conversation-languages', logger: options.logger });
  const ttlMs = options.idleTtlMs > 0 ? options.idleTtlMs : 365 * 24 * 3600_000;
  const redisKey = (principal: string, contextId: string): string => `${options.prefix}conversation-language:${key(principal, contextId)}`;
  const cutTurns = createRedisCutTurnNotes(redis, { prefix: options.prefix, ttlMs });
  const sentTurnMessages = createRedisSentTurnMessages(redis, { prefix: options.prefix, ttlMs });
  const languageRead = (principal: string, contextId: string): KeyedRead<FacadeLanguage> => ({
    key: redisKey(principal, contextId),
    read: (value) => (isLanguage(value) ? value : undefined),
  });
  return {
    async of(principal, contextId) {
      if (!contextId) return undefined;
      const { key, read } = languageRead(principal, contextId);
      return read(await redis.get(key).catch(failed));
    },
    async note(principal, contextId, language) {
      if (contextId) await redis.set(redisKey(principal, contextId), language, 'PX', ttlMs).catch(failed);
    },
    cutTurns,
    filesBeforeTurn: createRedisFilesBeforeTurn(redis, { prefix: options.prefix, ttlMs }),
    sentTurnMessages,
    movedContexts: createRedisMovedContexts(redis, { prefix: options.prefix, ttlMs }),
    startedAfreshTurns: createRedisStartedAfreshTurns(redis, { prefix: options.prefix, ttlMs }),
    readTogether: (principal, contextId) =>
      readTogether(redis, {
        cut: cutTurns.keyedCut(principal, contextId),
        sent: sentTurnMessages.keyed(principal, contextId),
        language: languageRead(principal, contextId),
      }),
    async close() {
      // The notes a shutdown's drain wrote as it cut its turns are kept before the connection goes.
      await cutTurns.settled();
      redis.disconnect();
    },
  };
}

/** Next to the task registry: memory for one replica, Redis when replicas share tasks. */
export function createConversationLanguages(
  config: Pick<GatewayConfig, 'store' | 'redis-url' | 'redis-tls' | 'redis-prefix' | 'tasks' | 'persistence-dir'>,
  logger?: RedisWatchLogger,
): ConversationLanguages {
  const idleTtlMs = config.tasks['idle-ttl-ms'];
  if (config.store === 'redis')
    return createRedisConversationLanguages({ url: redisEndpoint(config), prefix: config['redis-prefix'], idleTtlMs, ...(logger ? { logger } : {}) });
  // A rollout replaces the process: the turns its drain cut are read by the next one, from persistence-dir.
  const dir = config['persistence-dir'];
  return createMemoryConversationLanguages({ max: config.tasks['max-tasks'], idleTtlMs, dir, ...(logger ? { logger } : {}) });
}

import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { countBound } from '../lru-count-bound.js';
import type { StoredConfig } from './config-store/types.js';
import type { PushLogger } from './queue/types.js';
import { readSnapshot, snapshotFile } from '../snapshot-file.js';
import { withFields } from '../model/index.js';

/** The config a notification goes to: owner, task and id together name it (two owners may both use an id). */
export type NotifiedConfig = Pick<StoredConfig, 'owner' | 'taskId' | 'id'>;

/**
 * The notifications already queued, per config and stable event id: the first to claim one queues
 * it, any later claim (another replica that saw the same change, this process again, or this process
 * after a restart) is refused and skips it.
 */
export interface NotifiedEvents {
  /** True the first time `eventId` is claimed for `config`, false once it has been. */
  claim(config: NotifiedConfig, eventId: string): Promise<boolean>;
  /** Gives a claim back (its job could not be queued), so the next claim of it wins again. */
  release(config: NotifiedConfig, eventId: string): Promise<void>;
  /** Called once at stop, after the last claim: keeps what must outlive a restart. */
  close(): Promise<void>;
}

/** How long a claim is kept: far longer than any two replicas (or a restart) take to see the same change. */
export const NOTIFIED_TTL_MS = 24 * 60 * 60 * 1000;
/** Claims one process keeps at most (about 100 bytes each). */
export const NOTIFIED_MAX = 50_000;

/** The claim's name: a hash, so owner, task and config ids of any length or content make one short key. */
export function notifiedKey(config: NotifiedConfig, eventId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([config.owner, config.taskId, config.id, eventId]))
    .digest('base64url')
    .slice(0, 24);
}

/** `store: redis`: one key per claim, `<redis-prefix>push:notified:<notifiedKey>`, with a TTL. */
export const redisNotifiedKey = (prefix: string, config: NotifiedConfig, eventId: string): string =>
  `${prefix}push:notified:${notifiedKey(config, eventId)}`;

export interface RedisNotifiedEventsOptions {
  /** Owned by the caller: neither connected nor quit here. */
  redis: Redis;
  /** `redis-prefix`. */
  prefix: string;
  ttlMs?: number;
}

/** Shared by replicas: SET NX claims atomically, so of two replicas claiming at once exactly one wins. */
export function createRedisNotifiedEvents(options: RedisNotifiedEventsOptions): NotifiedEvents {
  const ttlMs = options.ttlMs ?? NOTIFIED_TTL_MS;
  return {
    async claim(config, eventId) {
      const set = await options.redis.set(redisNotifiedKey(options.prefix, config, eventId), '1', 'PX', ttlMs, 'NX');
      return set === 'OK';
    },
    async release(config, eventId) {
      await options.redis.del(redisNotifiedKey(options.prefix, config, eventId));
    },
    close: async () => undefined,
  };
}

export interface MemoryNotifiedEventsOptions {
  max?: number;
  ttlMs?: number;
  /** Claims to start from (kept by a previous process): `[key, claimed at (epoch ms)]`. */
  kept?: Array<[string, number]>;
  now?: () => number;
}

/** One process: the most recent claims, bounded, each for `ttlMs`. */
export function createMemoryNotifiedEvents(options: MemoryNotifiedEventsOptions = {}): NotifiedEvents & { entries(): Array<[string, number]> } {
  const ttlMs = options.ttlMs ?? NOTIFIED_TTL_MS;
  const now = options.now ?? Date.now;
  const claims = new LRUCache<string, number>(countBound(options.max ?? NOTIFIED_MAX));
  const live = (claimedAt: number) => now() - claimedAt < ttlMs;
  for (const [key, claimedAt] of (options.kept ?? []).sort((a, b) => a[1] - b[1])) {
    if (typeof key === 'string' && typeof claimedAt === 'number' && live(claimedAt)) claims.set(key, claimedAt);
  }
  return {
    async claim(config, eventId) {
      const key = notifiedKey(config, eventId);
      const claimedAt = claims.get(key);
      if (claimedAt !== undefined && live(claimedAt)) return false;
      claims.set(key, now());
      return true;
    },
    async release(config, eventId) {
      claims.delete(notifiedKey(config, eventId));
    },
    async close() {},
    /** Oldest first, expired ones left out. */
    entries: () => [...claims.entries()].filter(([, claimedAt]) => live(claimedAt)).reverse(),
  };
}

const FILE = 'push_notified.json';
/** A crash loses at most the claims of this long: a turn's end pushed again, with the same event id. */
const SAVE_EVERY_MS = 5_000;

/**
 * One replica: the claims in memory, written to `<persistence-dir>/push_notified.json` when push stops
 * and read back at start, so a turn whose end was queued just before a restart is not queued again by
 * the follow taken up after it. Between stops the file is rewritten `saveEveryMs` after a change (the
 * whole snapshot, up to a few MB, so not on every claim): a crash loses the claims of that last moment.
 */
export async function createFileNotifiedEvents(
  dir: string,
  logger: PushLogger,
  options: MemoryNotifiedEventsOptions & { saveEveryMs?: number } = {},
): Promise<NotifiedEvents> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, FILE);
  const kept = await readSnapshot<[string, number]>(path).catch((error: unknown) => {
    logger.warn(
      { err: error, path },
      'A2A push: the notifications queued before the restart could not be read; a turn that ended then may be pushed again',
    );
    return [];
  });
  const memory = createMemoryNotifiedEvents(withFields(options, { kept }));
  const { persist } = snapshotFile(path, memory.entries, (error: unknown) =>
    logger.error({ err: error, path }, 'A2A push: the notifications queued could not be saved'),
  );
  const saveEveryMs = options.saveEveryMs ?? SAVE_EVERY_MS;
  let timer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      persist().catch(() => undefined);
    }, saveEveryMs);
    timer.unref();
  };
  return {
    async claim(config, eventId) {
      const claimed = await memory.claim(config, eventId);
      if (claimed) changed();
      return claimed;
    },
    async release(config, eventId) {
      await memory.release(config, eventId);
      changed();
    },
    close: () => {
      clearTimeout(timer);
      timer = undefined;
      return persist().catch(() => undefined);
    },
  };
}

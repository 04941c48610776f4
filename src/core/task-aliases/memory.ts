import { FairLru } from '../fair-lru.js';
import type { TaskAlias, TaskAliases } from './types.js';

export interface MemoryTaskAliasesOptions {
  max: number;
  /** An alias not used for this long is forgotten with its task (0: never). */
  idleTtlMs: number;
}

/**
 * The bound takes from the owner holding the most ids (fair-lru.ts): one caller naming ids by the
 * thousand forgets its own, never the id another caller named its task by.
 */
export function createMemoryTaskAliases(options: MemoryTaskAliasesOptions): TaskAliases {
  const bounds = { max: options.max, ...(options.idleTtlMs > 0 ? { ttl: options.idleTtlMs } : {}) };
  const byClientId = new FairLru<string, TaskAlias>(bounds);
  const byUpstream = new FairLru<string, string>(bounds);
  // NUL is in no principal and no id: one owner's key is never another's.
  const ownKey = (id: string, owner: string) => `${owner}\u0000${id}`;
  // Idle means not used: a read sets the entry again, as FairLru's TTL runs from the last set.
  const use = <V>(cache: FairLru<string, V>, id: string, owner: string): V | undefined => {
    const key = ownKey(id, owner);
    const value = cache.get(key);
    if (value !== undefined && options.idleTtlMs > 0) cache.set(key, value, owner);
    return value;
  };
  return {
    lookup: async (clientId, owner) => use(byClientId, clientId, owner),
    async claim(clientId, owner) {
      const held = use(byClientId, clientId, owner);
      if (held) return held.upstream === undefined;
      byClientId.set(ownKey(clientId, owner), {}, owner);
      return true;
    },
    async bind(clientId, owner, upstreamId) {
      byClientId.set(ownKey(clientId, owner), { upstream: upstreamId }, owner);
      byUpstream.set(ownKey(upstreamId, owner), clientId, owner);
    },
    clientIdOf: async (upstreamId, owner) => use(byUpstream, upstreamId, owner),
    async close() {
      byClientId.clear();
      byUpstream.clear();
    },
  };
}

import { LRUCache } from 'lru-cache';
import { withFields } from '../../model/with-fields.js';
import { countBound } from '../../lru-count-bound.js';
import type { TaskAlias, TaskAliases } from './types.js';

export interface MemoryTaskAliasesOptions {
  max: number;
  /** An alias not used for this long is forgotten with its task (0: never). */
  idleTtlMs: number;
}

export function createMemoryTaskAliases(options: MemoryTaskAliasesOptions): TaskAliases {
  const bounds = withFields(countBound(options.max), options.idleTtlMs > 0 ? { ttl: options.idleTtlMs, updateAgeOnGet: true } : {});
  const byClientId = new LRUCache<string, TaskAlias>(bounds);
  const byUpstream = new LRUCache<string, string>(bounds);
  // NUL is in no principal and no id: one owner's key is never another's.
  const ownKey = (id: string, owner: string) => `${owner}\u0000${id}`;
  return {
    lookup: async (clientId, owner) => byClientId.get(ownKey(clientId, owner)),
    async claim(clientId, owner) {
      const held = byClientId.get(ownKey(clientId, owner));
      if (held) return held.upstream === undefined;
      byClientId.set(ownKey(clientId, owner), {});
      return true;
    },
    async bind(clientId, owner, upstreamId) {
      byClientId.set(ownKey(clientId, owner), { upstream: upstreamId });
      byUpstream.set(ownKey(upstreamId, owner), clientId);
    },
    clientIdOf: async (upstreamId, owner) => byUpstream.get(ownKey(upstreamId, owner)),
    async close() {
      byClientId.clear();
      byUpstream.clear();
    },
  };
}

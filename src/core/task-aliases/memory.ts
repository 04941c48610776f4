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
  const reverseKey = (upstreamId: string, owner: string) => `${owner}\u0000${upstreamId}`;
  return {
    lookup: async (clientId) => byClientId.get(clientId),
    async claim(clientId, owner) {
      const held = byClientId.get(clientId);
      if (held) return held.owner === owner && held.upstream === undefined;
      byClientId.set(clientId, { owner });
      return true;
    },
    async bind(clientId, owner, upstreamId) {
      byClientId.set(clientId, { owner, upstream: upstreamId });
      byUpstream.set(reverseKey(upstreamId, owner), clientId);
    },
    clientIdOf: async (upstreamId, owner) => byUpstream.get(reverseKey(upstreamId, owner)),
    async close() {
      byClientId.clear();
      byUpstream.clear();
    },
  };
}

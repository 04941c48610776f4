import type { Redis } from 'ioredis';
import type { ListTasksRequest } from '../../model/index.js';
import { memberTaskId } from './query.js';
import type { RegistryKeys } from './redis-keys.js';
import type { WriteRefusals } from './write-refusals.js';

/** Where a ListTasks page lies in a scope's sorted sets: lexical bounds of its members, and its size. */
export interface MemberBounds {
  /** Above `statusTimestampAfter` (`-`: none). */
  min: string;
  /** Below the page token's member (`+`: the first page). */
  max: string;
  /** The page token's member, if any. */
  cursor: string | undefined;
  pageSize: number;
}

/**
 * The members (`<timestamp key>|<id>`) of a ListTasks page in `scope`, one more than the page holds when there are
 * more, and how many match in all. Replies are read through `refusals` (write-refusals.ts): a Redis out of reach is
 * a refusal for now.
 */
export async function listedMembers(
  redis: Redis,
  refusals: Pick<WriteRefusals, 'read'>,
  keys: RegistryKeys,
  scope: string,
  request: ListTasksRequest,
  { min, max, cursor, pageSize }: MemberBounds,
): Promise<{ total: number; members: string[] }> {
  if (request.contextId && request.status) {
    // No index for context × state: filter the (small) context set by the states kept in idx.
    const all = await refusals.read(redis.zrevrangebylex(keys.context(scope, request.contextId), '+', min));
    const infos = all.length > 0 ? await refusals.read(redis.hmget(`${scope}idx`, ...all.map(memberTaskId))) : [];
    const matching = all.filter((_, i) => {
      const info = infos[i];
      return info ? (JSON.parse(info) as { s: string }).s === request.status : false;
    });
    return { total: matching.length, members: matching.filter((member) => cursor === undefined || member < cursor).slice(0, pageSize + 1) };
  }
  const key = keys.listed(scope, request);
  const replies =
    (await refusals.read(
      redis
        .multi()
        .zlexcount(key, min, '+')
        .zrevrangebylex(key, max, min, 'LIMIT', 0, pageSize + 1)
        .exec(),
    )) ?? [];
  for (const [error] of replies) if (error) throw error;
  return { total: Number(replies[0]?.[1] ?? 0), members: (replies[1]?.[1] as string[] | undefined) ?? [] };
}

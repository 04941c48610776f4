/**
 * Lua scripts of the Redis task registry. Layout under the prefix P (O = encoded owner, C = encoded
 * context id, T = encoded tenant):
 *   P t:<id>        hash  v (version) d (JSON {task, upstream, w: the last write ids}) o (owner) u (last write, Redis TIME µs)
 *                         n (tenant; absent: the default tenant, as in records written before tenants)
 * An owner's tasks in the default tenant are indexed under S = P o:O:, those in tenant T under
 * S = P o:O:t:T: (the task's scope), each scope alike:
 *   S all           zset  every task of the scope, score 0, member = sort member (list order)
 *   S s:<state>     zset  the scope's tasks in that state
 *   S c:C           zset  the scope's tasks in that context
 *   S idx           hash  id -> {m,s,k}: what pruning needs once the task hash has expired
 *   S exp           zset  id scored by expiry (µs): which index members to prune
 *   P o:O:l:C       string id of the owner's task in that context written last, whatever its tenant (latestInContext):
 *                         one per owner and context, as before tenants, since the agent may keep one conversation
 *                         per context id whatever the tenant (docs/core.md, Tenants); replicas of before write it too
 *   P ctx:C         string owner of the context (its first writer, or the caller whose message named it first:
 *                         CLAIM_CONTEXT_SCRIPT), kept for the context-owner TTL
 *   P ctxn:C        string the tenant the context was opened under (its first writer's; '' the default tenant), beside
 *                         P ctx:C, written and renewed with it, so it has its TTL; none: not recorded, since replicas of
 *                         before write P ctx:C alone and renew it alone (a context they opened, or one whose P ctxn:C
 *                         they let expire): the owner's next write there records its own tenant
 * Every key a write touches gets the idle TTL again (the context's owner its own, longer one), so an
 * index key can only expire when every task in it has; members of tasks that expired earlier are pruned
 * by PRUNE_SCRIPT before a list.
 * Some key names are built inside the scripts, so this layout targets a single Redis (not Cluster).
 */

/**
 * Compare-and-set one task and move its index entries (the old ones are read from the idx hash,
 * which also cleans up after an expired task whose id is written again). Conflicts return the
 * current state so the caller can fold again without another round trip.
 * KEYS: task, idx, exp, all, context ('' fragment: unused), status (those five of the task's scope), contextOwner,
 *       contextTenant, then any keys that expire with the task (push configs: they get its idle TTL on every write)
 * ARGV: expectedVersion, doc, owner, member, state, contextFragment ('' = none), ttlMs, taskId,
 *       scopeKeyPrefix ('P o:O:' or 'P o:O:t:T:'), contextOwnerTtlMs (0: never expires), tenant ('' = default),
 *       ownerKeyPrefix ('P o:O:': the context's latest-task pointer is the owner's, not the scope's)
 * Returns {1, version, updatedMicros} | {0, version, doc, updatedMicros} | {-1} (another owner's task,
 * or one of another tenant: its index entries are in another scope, and it is not the writer's)
 */
export const WRITE_SCRIPT = `
local fields = redis.call('HMGET', KEYS[1], 'v', 'd', 'o', 'u', 'n')
if fields[1] and (fields[3] ~= ARGV[3] or (fields[5] or '') ~= ARGV[11]) then return {-1} end
local current = fields[1] or '0'
if current ~= ARGV[1] then return {0, current, fields[2] or '', fields[4] or '0'} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Large numbers go to Redis as strings: Lua would print 1.8e+15 and lose the microseconds.
local nowText = string.format('%.0f', now)
local ttl = tonumber(ARGV[7])
local version = tonumber(current) + 1
local previous = redis.call('HGET', KEYS[2], ARGV[8])
if previous then
  local info = cjson.decode(previous)
  redis.call('ZREM', KEYS[4], info.m)
  redis.call('ZREM', ARGV[9] .. 's:' .. info.s, info.m)
  if info.k ~= '' then redis.call('ZREM', ARGV[9] .. 'c:' .. info.k, info.m) end
end
redis.call('HSET', KEYS[1], 'v', version, 'd', ARGV[2], 'o', ARGV[3], 'u', nowText)
-- The default tenant is no field: its records stay as they were before tenants were recorded.
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'n', ARGV[11]) end
redis.call('HSET', KEYS[2], ARGV[8], cjson.encode({m = ARGV[4], s = ARGV[5], k = ARGV[6]}))
redis.call('ZADD', KEYS[4], 0, ARGV[4])
redis.call('ZADD', KEYS[6], 0, ARGV[4])
if ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[5], 0, ARGV[4])
  -- The first writer opens the context in its tenant ('' too: no key is a tenant not recorded, by a replica of
  -- before); the owner's write records its tenant where none is.
  if redis.call('SET', KEYS[7], ARGV[3], 'NX') or (not redis.call('GET', KEYS[8]) and redis.call('GET', KEYS[7]) == ARGV[3]) then
    redis.call('SET', KEYS[8], ARGV[11])
  end
  -- Scripts run one at a time, so the last one to write names the context's latest task.
  redis.call('SET', ARGV[12] .. 'l:' .. ARGV[6], ARGV[8])
end
if ttl > 0 then
  redis.call('ZADD', KEYS[3], string.format('%.0f', now + ttl * 1000), ARGV[8])
  for _, key in ipairs({KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6]}) do redis.call('PEXPIRE', key, ttl) end
  if ARGV[6] ~= '' then
    redis.call('PEXPIRE', KEYS[5], ttl)
    redis.call('PEXPIRE', ARGV[12] .. 'l:' .. ARGV[6], ttl)
  end
  for i = 9, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
end
if ARGV[6] ~= '' and redis.call('GET', KEYS[7]) == ARGV[3] and redis.call('GET', KEYS[8]) == ARGV[11] then
  local contextTtl = tonumber(ARGV[10])
  for _, key in ipairs({KEYS[7], KEYS[8]}) do
    if contextTtl > 0 then redis.call('PEXPIRE', key, contextTtl) else redis.call('PERSIST', key) end
  end
end
return {1, version, now}
`;

/**
 * Drop index entries of the scope's tasks whose hash has expired.
 * KEYS: idx, exp, all. ARGV: scopeKeyPrefix ('P o:O:' or 'P o:O:t:T:'), taskKeyPrefix ('P t:'), batch size.
 * Returns how many expiry entries were examined (== batch size: call again).
 */
export const PRUNE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now), 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[2] .. id) == 0 then
    redis.call('ZREM', KEYS[2], id)
    local raw = redis.call('HGET', KEYS[1], id)
    if raw then
      local info = cjson.decode(raw)
      redis.call('ZREM', KEYS[3], info.m)
      redis.call('ZREM', ARGV[1] .. 's:' .. info.s, info.m)
      if info.k ~= '' then redis.call('ZREM', ARGV[1] .. 'c:' .. info.k, info.m) end
      redis.call('HDEL', KEYS[1], id)
    end
  end
end
return #ids
`;

/**
 * Claim a context nobody owns for a message's caller, before the agent hears of it; the scope that stands either way.
 * KEYS: contextOwner, contextTenant. ARGV: owner, tenant ('' = default), contextOwnerTtlMs (0: never expires).
 * Returns {owner, tenant} (tenant false: not recorded, by a replica of before).
 */
export const CLAIM_CONTEXT_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('SET', KEYS[2], ARGV[2])
  local ttl = tonumber(ARGV[3])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[1], ttl)
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
  return {ARGV[1], ARGV[2]}
end
return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}
`;

/**
 * The task a context's latest pointer names, its hash's fields as loadTasks reads a task's: one round trip where
 * a GET of the pointer and then the task's HMGET were two (every message that names a context reads it). Without a
 * pointer, the context's tasks in the owner's default tenant, where the caller looks next: a context no task was
 * recorded in yet (every conversation's opening message reads it, twice) costs one round trip, not two.
 * KEYS: the owner's pointer in the context (P o:O:l:C), the context's index in the owner's default tenant (P o:O:c:C).
 * ARGV: taskKeyPrefix ('P t:').
 * Returns {1, {d, o, u, n}} (nil where the hash has none: a task gone), or {0, members of the index, last first}.
 */
export const LATEST_IN_CONTEXT_SCRIPT = `
local id = redis.call('GET', KEYS[1])
if id then return {1, redis.call('HMGET', ARGV[1] .. id, 'd', 'o', 'u', 'n')} end
return {0, redis.call('ZREVRANGEBYLEX', KEYS[2], '+', '-')}
`;

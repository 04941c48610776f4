/**
 * When a replica takes over the follows of one that is gone, the line that says so tells apart the follows it dropped
 * because their time was up (`expired`: load, a replica gone for longer than the follows' bound) from those it dropped
 * because they do not read as follows (`damaged`: a bug, an edit by hand, another version), and is at warn when any were
 * damaged. Before, one `dropped` count mixed the two, at info. Against a real Redis.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisFollowJournal, redisFollowKeys, type RedisFollowJournal } from '../../src/push/follow-journal-redis.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const PREFIX = `a2a-bridge-test:follow-takeover-reasons:${randomUUID()}:`;
const keys = redisFollowKeys(PREFIX);
let redis: Redis;
const journals: RedisFollowJournal[] = [];
beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await Promise.all(journals.map((journal) => journal.close()));
  const stored = await redis.keys(`${PREFIX}*`);
  if (stored.length > 0) await redis.del(...stored);
  await redis.quit();
});

const follow = (taskId: string, until: number) => JSON.stringify({ taskId, principal: 'p', until });

/** A journal of `replicaId` whose log lines are kept, with their level. */
function journalOf(replicaId: string) {
  const lines: Array<{ level: 'info' | 'warn'; fields: Record<string, unknown>; message: string }> = [];
  const keep = (level: 'info' | 'warn') => (fields: object, message: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  const logger = { info: keep('info'), warn: keep('warn'), error() {} };
  const journal = createRedisFollowJournal({ redis, prefix: PREFIX, leaseMs: 30_000, replicaId, logger });
  journals.push(journal);
  const takeovers = () => lines.filter((line) => /taken over/.test(line.message)).map(({ level, fields }) => ({ level, ...fields }));
  return { journal, takeovers };
}

describe("a gone replica's follows taken over", () => {
  it('expired and damaged follows counted apart; at warn when any was damaged', async () => {
    await redis.hset(
      keys.follows('gone-mixed'),
      't-ok',
      follow('t-ok', Date.now() + 60_000),
      't-expired',
      follow('t-expired', Date.now() - 1_000),
      't-cut',
      '{"taskId":"t-cut","princ',
      't-no-until',
      JSON.stringify({ taskId: 't-no-until', principal: 'p' }),
      // Its `until` reads in Redis, so it is moved; it is no follow all the same (no principal).
      't-no-principal',
      JSON.stringify({ taskId: 't-no-principal', until: Date.now() + 60_000 }),
    );
    await redis.sadd(keys.owners, 'gone-mixed');
    const { journal, takeovers } = journalOf('claimer-mixed');
    expect((await journal.claimOrphans(10)).map((entry) => entry.taskId)).toEqual(['t-ok']);
    expect(takeovers()).toEqual([expect.objectContaining({ level: 'warn', from: 'gone-mixed', claimed: 1, expired: 1, damaged: 3 })]);
  });

  it('only expired ones: at info, none damaged', async () => {
    await redis.hset(keys.follows('gone-late'), 't-late', follow('t-late', Date.now() - 1_000), 't-later', follow('t-later', Date.now() - 1));
    await redis.sadd(keys.owners, 'gone-late');
    const { journal, takeovers } = journalOf('claimer-late');
    expect(await journal.claimOrphans(10)).toEqual([]);
    expect(takeovers()).toEqual([expect.objectContaining({ level: 'info', from: 'gone-late', claimed: 0, expired: 2, damaged: 0 })]);
  });
});

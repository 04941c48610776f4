/**
 * A follow kept in Redis that does not read as one (edited by hand, written by another version) is a turn whose end
 * will not be pushed: the journal says so, at warn, with how many, whether it reads its own follows at start or takes
 * over a gone replica's; before, such entries were skipped without a word. The file journal tells each damaged entry
 * at start (follow-journal.ts).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisFollowJournal, redisFollowKeys, type RedisFollowJournal } from '../../src/push/follow-journal-redis.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const PREFIX = `a2a-bridge-test:follow-journal-damaged:${randomUUID()}:`;
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

const until = () => Date.now() + 60_000;
const good = (taskId: string) => JSON.stringify({ taskId, principal: 'p', until: until() });

function journalOf(replicaId: string) {
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const logger = {
    info() {},
    warn: (fields: object, message: string) => void warnings.push({ fields: fields as Record<string, unknown>, message }),
    error() {},
  };
  const journal = createRedisFollowJournal({ redis, prefix: PREFIX, leaseMs: 30_000, replicaId, logger });
  journals.push(journal);
  const damaged = () => warnings.filter((warning) => /could not be restored/.test(warning.message)).map((warning) => warning.fields.damaged);
  return { journal, damaged };
}

describe('damaged follows in the Redis journal', () => {
  it('its own, read at start: the good ones restored, the damaged told with their count', async () => {
    await redis.hset(
      keys.follows('own'),
      't-good',
      good('t-good'),
      't-cut',
      '{"taskId":"t-cut","princ',
      't-no-owner',
      JSON.stringify({ taskId: 't-no-owner', until: until() }),
    );
    const { journal, damaged } = journalOf('own');
    expect((await journal.entries()).map((entry) => entry.taskId)).toEqual(['t-good']);
    expect(damaged()).toEqual([2]);
  });

  it("a gone replica's, taken over: the damaged one is told", async () => {
    // A follow with its `until` but no principal: the claim moves it, and it cannot be followed.
    await redis.hset(keys.follows('gone'), 't-ok', good('t-ok'), 't-bad', JSON.stringify({ taskId: 't-bad', until: until() }));
    await redis.sadd(keys.owners, 'gone');
    const { journal, damaged } = journalOf('claimer');
    expect((await journal.claimOrphans(10)).map((entry) => entry.taskId)).toEqual(['t-ok']);
    expect(damaged()).toEqual([1]);
  });
});

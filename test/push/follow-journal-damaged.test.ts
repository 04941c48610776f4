/**
 * A follow kept in Redis that does not read as one (edited by hand, written by another version) is a turn whose end
 * will not be pushed: the journal says so, at warn, with how many, whether it reads its own follows at start or takes
 * over a gone replica's; before, such entries were skipped without a word. The file journal tells each damaged entry
 * at start (follow-journal.ts). A replica that takes over a gone one's follows tells those it dropped because their time
 * was up (`expired`) from the damaged ones (`damaged`), at warn when any was damaged; before, one `dropped` count mixed
 * them, at info.
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
/** A follow of `taskId` whose time is up at `untilMs`. */
const follow = (taskId: string, untilMs: number) => JSON.stringify({ taskId, principal: 'p', until: untilMs });
const good = (taskId: string) => follow(taskId, until());

/** A journal of `replicaId` whose log lines are kept, with their level. */
function journalOf(replicaId: string) {
  const lines: Array<{ level: 'info' | 'warn'; fields: Record<string, unknown>; message: string }> = [];
  const keep = (level: 'info' | 'warn') => (fields: object, message: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  const logger = { info: keep('info'), warn: keep('warn'), error() {} };
  const journal = createRedisFollowJournal({ redis, prefix: PREFIX, leaseMs: 30_000, replicaId, logger });
  journals.push(journal);
  const damaged = () =>
    lines.filter((line) => line.level === 'warn' && /could not be restored/.test(line.message)).map((line) => line.fields.damaged);
  const takeovers = () => lines.filter((line) => /taken over/.test(line.message)).map(({ level, fields }) => ({ level, ...fields }));
  return { journal, damaged, takeovers };
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

// Expired follows are load (a replica gone longer than their bound), damaged ones a bug or an edit: told apart.
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

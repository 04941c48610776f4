/**
 * A Redis that froze fails every renewal of the push follow lease (a third of push-follow-lease-ms, 5 s by
 * default): told once, then counted (`leftOut`) as the other stores' lease renewals are, not a warning with its
 * stack every few seconds for as long as the freeze lasts.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisFollowJournal, type RedisFollowJournal } from '../../src/push/follow-journal-redis.js';
import { startFreezingRedis, type FreezingRedis } from '../support/freezing-redis.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { waitUntil } from '../support/wait-until.js';
import { setup } from './follow-harness.js';

beforeAll(requireRedis);

const PREFIX = `a2a-bridge-test:follow-lease-warnings:${randomUUID()}:`;
let proxy: FreezingRedis;
let connection: Redis;
let journal: RedisFollowJournal;
const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
const logger = {
  info() {},
  warn: (fields: object, message: string) => void warnings.push({ fields: fields as Record<string, unknown>, message }),
  error() {},
};

beforeAll(async () => {
  proxy = await startFreezingRedis(REDIS_URL);
  connection = new Redis(proxy.url, { commandTimeout: 40, maxRetriesPerRequest: 0 });
  connection.on('error', () => undefined);
  // A lease of 300 ms is renewed every 100 ms.
  journal = createRedisFollowJournal({ redis: connection, prefix: PREFIX, leaseMs: 300, replicaId: 'frozen', logger });
});
afterAll(async () => {
  await journal?.close().catch(() => undefined);
  connection?.disconnect();
  await proxy?.close();
  const admin = new Redis(REDIS_URL);
  const keys = await admin.keys(`${PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describe('push follow lease renewals while Redis is frozen', () => {
  it('are told once, not once per renewal', async () => {
    await waitUntil(async () => connection.status === 'ready');
    // A loaded host may time a renewal out (40 ms) before the freeze: that warning is the one told then, and the
    // freeze's are counted after it. Either way one line.
    await new Promise((resolve) => setTimeout(resolve, 250));
    proxy.freezeAt(/./);
    // About fifteen renewals fail meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const renewals = warnings.filter((warning) => warning.message === 'push follow lease could not be renewed');
    expect(renewals.length).toBeGreaterThan(0);
    expect(renewals).toHaveLength(1);
    proxy.thaw();
  });
});

describe("claims of gone replicas' follows while Redis is frozen", () => {
  it('are told once, not once per round', async () => {
    const claimProxy = await startFreezingRedis(REDIS_URL);
    const claimConnection = new Redis(claimProxy.url, { commandTimeout: 40, maxRetriesPerRequest: 0 });
    claimConnection.on('error', () => undefined);
    const told: string[] = [];
    const claimLogger = { info() {}, warn: (_fields: object, message: string) => void told.push(message), error() {} };
    // A lease of 150 ms: a claim round every 50 ms.
    const claimJournal = createRedisFollowJournal({
      redis: claimConnection,
      prefix: PREFIX,
      leaseMs: 150,
      replicaId: 'claimer',
      logger: { ...claimLogger, warn() {} },
    });
    const { follower } = await setup([], [], { journal: claimJournal, logger: claimLogger });
    try {
      await waitUntil(async () => claimConnection.status === 'ready');
      // A loaded host may time the journal's first read out (40 ms) before the freeze: the gateway logs that and
      // claims again at the next round; here it is asked again.
      await waitUntil(() => follower.resume().then(() => true));
      claimProxy.freezeAt(/./);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const claims = told.filter((message) => message === 'push follow: the follows of replicas that are gone could not be claimed');
      expect(claims.length).toBeGreaterThan(0);
      expect(claims).toHaveLength(1);
    } finally {
      claimProxy.thaw();
      await follower.stop();
      await claimJournal.close().catch(() => undefined);
      claimConnection.disconnect();
      await claimProxy.close();
    }
  });
});

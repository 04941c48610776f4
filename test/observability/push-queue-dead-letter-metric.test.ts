/**
 * A notification the redis-streams queue dead-letters itself, without an attempt of this replica's, is given up on
 * all the same: counted `outcome="permanent"` in a2a_bridge_push_deliveries_total, which A2ABridgePushDeliveriesFailing
 * watches. Two such: an entry whose lease expired more often than `push-max-attempts` allows (a job that kills
 * its workers), and an entry that holds no job (written by hand, or damaged).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPushJob } from '../../src/push/queue/types.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value } from '../support/prometheus.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';
import { waitUntil } from '../support/wait-until.js';

beforeAll(requireRedis);

const PREFIX = `a2a-bridge-test:queue-dead-letter-metric:${randomUUID()}:`;
const STREAM = `${PREFIX}push`;
const DEAD = `${PREFIX}push:dead`;
const GROUP = `${PREFIX}group`;
let dir: string | undefined;
let gateway: TestGateway | undefined;
let redis: Redis | undefined;

afterAll(async () => {
  await gateway?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  await redis?.quit();
  await deleteRedisKeys(PREFIX);
});

describe('a2a_bridge_push_deliveries_total for dead letters the redis-streams queue made itself', { timeout: 30_000 }, () => {
  it('counts an entry whose lease expired too often and a malformed entry permanent', async () => {
    redis = new Redis(REDIS_URL);
    await redis.xgroup('CREATE', STREAM, GROUP, '0', 'MKSTREAM');
    const poison = newPushJob({ eventId: 'poison', taskId: 't', configId: 'c', owner: '', url: 'https://x.example/', payload: '{}' });
    await redis.xadd(STREAM, '*', 'job', JSON.stringify(poison));
    const read = (await redis.call('XREADGROUP', 'GROUP', GROUP, 'ghost', 'COUNT', 1, 'STREAMS', STREAM, '>')) as Array<
      [string, Array<[string, string[]]>]
    >;
    // As if it had been handed out and abandoned by two crashed workers already (push-max-attempts: 2).
    await redis.call('XCLAIM', STREAM, GROUP, 'ghost', 0, read[0]?.[1][0]?.[0] as string, 'RETRYCOUNT', 2);
    await redis.xadd(STREAM, '*', 'job', 'not a job');

    dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-queue-dead-letter-'));
    gateway = await startTestGateway({
      'push-notifications': true,
      'push-allow-private': true,
      'push-max-attempts': 2,
      'persistence-dir': dir,
      store: 'redis',
      'redis-url': REDIS_URL,
      'redis-prefix': PREFIX,
      'push-queue': 'redis-streams',
      'push-keys': ['k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
      'push-stream': STREAM,
      'push-retry-key': `${PREFIX}push:retry`,
      'push-dead-stream': DEAD,
      'push-consumer-group': GROUP,
      'push-lease-timeout-ms': 50,
    });
    await waitUntil(async () => (await redis!.xlen(DEAD)) === 2, 15_000);
    const reasons = ((await redis.xrange(DEAD, '-', '+')) as Array<[string, string[]]>).map(([, fields]) => fields[3]);
    expect(reasons.sort()).toEqual(['delivery lease expired 2 times', 'malformed job entry']);
    const samples = await scrape(gateway.url);
    expect(value(samples, 'a2a_bridge_push_deliveries_total', { outcome: 'permanent' })).toBe(2);
    expect(value(samples, 'a2a_bridge_push_deliveries_total', { outcome: 'retry' })).toBe(0);
  });
});

/**
 * How a registry read that fails is answered: for want of a Redis (no connection, no answer in time, a
 * dataset still loading) a refusal for now that the caller may retry; for what it asked (a key of the wrong
 * type) the gateway's own error, as before. Against a real Redis.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchWriteRefusals } from '../../src/core/task-registry/write-refusals.js';
import { GATEWAY_FAILURES } from '../../src/model/index.js';
import { REDIS_URL } from '../support/redis.js';

const key = `write-refusals-test:${randomBytes(4).toString('hex')}`;
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  await redis.set(key, 'a string');
});
afterAll(async () => {
  await redis.del(key);
  redis.disconnect();
});

describe('a registry read that fails', () => {
  it('for what it asked (a key of the wrong type): the error as Redis gave it', async () => {
    const refusals = watchWriteRefusals(redis, `${key}:probe`);
    await expect(refusals.read(redis.hmget(key, 'd'))).rejects.toThrow(/WRONGTYPE/);
    expect(refusals.refusing()).toBe(false);
    refusals.stop();
  });

  it('for want of a Redis: a refusal for now', async () => {
    const gone = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
    const refusals = watchWriteRefusals(gone, `${key}:probe`);
    await expect(refusals.read(gone.get(key))).rejects.toMatchObject({
      code: -32603,
      message: GATEWAY_FAILURES.registryOutOfReach,
      retryAfterSeconds: expect.any(Number),
    });
    refusals.stop();
    gone.disconnect();
  });
});

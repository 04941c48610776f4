import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { RedisStreamsQueueOptions } from '../../src/push/queue/redis-streams.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

export type QueueNames = Pick<RedisStreamsQueueOptions, 'url' | 'stream' | 'retryKey' | 'deadStream' | 'group'>;

/**
 * What a file of Redis queue tests sets up: a key prefix of its own, steps undone after each test (newest
 * first: a queue's stop before the webhook it delivers to), a connection for the test's own commands, and
 * at the end every key under the prefix deleted and the connection closed.
 */
export function redisQueueRun(name: string) {
  const prefix = `test-push-${name}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const cleanup: Array<() => unknown> = [];
  let connection: Redis | undefined;
  let counter = 0;
  beforeAll(requireRedis);
  beforeAll(() => {
    connection = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  afterAll(async () => {
    if (!connection) return;
    const keys = await connection.keys(`${prefix}*`);
    if (keys.length > 0) await connection.del(...keys);
    await connection.quit();
  });
  return {
    prefix,
    cleanup,
    get redis(): Redis {
      return connection as Redis;
    },
    /** Fresh names for one queue (its stream, retry set, dead stream and group), under the prefix. */
    names(): QueueNames {
      counter += 1;
      const base = `${prefix}:${counter}`;
      return { url: REDIS_URL, stream: `${base}:push`, retryKey: `${base}:push:retry`, deadStream: `${base}:push:dead`, group: `${base}-group` };
    },
  };
}

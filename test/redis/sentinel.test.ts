/**
 * Redis through Sentinel (`redis+sentinel://`), on real redis-servers of the test's own: a primary, a
 * replica and a sentinel. A task registry given the sentinel URL writes to the primary the sentinel
 * names; after a failover the same registry writes to the new primary, within moments, while the old
 * one still takes writes (Sentinel demotes it only some seconds later): a write sent there would be lost.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { TaskStore } from '../../src/core/task-registry/types.js';
import type { Task } from '../../src/model/index.js';
import { DATA_PASSWORD, ownSentinel, type OwnSentinel } from '../support/redis-sentinel.js';

const PREFIX = 'sentinel-test:';
const meta = { owner: 'owner-a', upstream: 'u' };
const taskOf = (id: string): Task => ({ id, contextId: `ctx-${id}`, status: { state: 'TASK_STATE_WORKING' } });

let sentinel: OwnSentinel;
let registry: TaskStore;

beforeAll(async () => {
  sentinel = await ownSentinel();
  // The data nodes' user is given too: `default` is the user requirepass sets the password of.
  registry = createRedisTaskRegistry({
    url: sentinel.url.replace(`://:${DATA_PASSWORD}@`, `://default:${DATA_PASSWORD}@`),
    prefix: PREFIX,
    idleTtlMs: 0,
    historyLimit: 10,
  });
}, 30_000);
afterAll(async () => {
  await registry?.close();
  await sentinel?.stop();
});

/** Runs `check` on a plain connection to one data node. */
async function onNode<T>(port: number, check: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = sentinel.direct(port);
  redis.on('error', () => undefined);
  try {
    return await check(redis);
  } finally {
    redis.disconnect();
  }
}
const ownerOn = (port: number, taskId: string) => onNode(port, (redis) => redis.hget(`${PREFIX}t:${taskId}`, 'o'));

describe('a task registry through Sentinel', () => {
  it('writes to the primary the sentinel names', async () => {
    expect(await sentinel.currentPrimary()).toBe(sentinel.primaryPort);
    await registry.put(taskOf('before'), meta);
    expect(await ownerOn(sentinel.primaryPort, 'before')).toBe('owner-a');
    expect(await registry.get('before', meta.owner)).toMatchObject({ id: 'before' });
  });

  it('after a failover, writes to the new primary and loses nothing', async () => {
    // What the first test wrote is on the replica before it is promoted.
    expect(await onNode(sentinel.primaryPort, (redis) => redis.call('WAIT', '1', '5000'))).toBe(1);

    const promoted = await sentinel.failover();
    expect(promoted).toBe(sentinel.replicaPort);
    // Written as soon as the sentinel names the new primary. The old one still takes writes for about
    // 10 s, until Sentinel makes it a replica and its data is replaced: a registry that stayed on it
    // would see this write succeed and lose it.
    await registry.put(taskOf('after'), meta);
    expect(await ownerOn(promoted, 'after')).toBe('owner-a');
    expect(await ownerOn(promoted, 'before')).toBe('owner-a');
    expect(await registry.get('after', meta.owner)).toMatchObject({ id: 'after' });
    expect(await registry.get('before', meta.owner)).toMatchObject({ id: 'before' });
  }, 60_000);
});

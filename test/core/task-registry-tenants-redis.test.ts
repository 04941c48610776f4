/**
 * The Redis task registry's tenants, in Redis itself: a tenant's tasks are indexed apart from the default
 * tenant's, and records written before tenants were recorded (the same keys, no tenant field) are the
 * default tenant's, read, listed and written on as before, across replicas.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { sortMember } from '../../src/core/task-registry/query.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { status, taskOf } from './registry-fixtures.js';

beforeAll(requireRedis);

const probe = new Redis(REDIS_URL, { lazyConnect: true });
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await probe.keys(`${prefix}*`);
    if (keys.length > 0) await probe.del(...keys);
  }
  await probe.quit();
});

function registries() {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  prefixes.push(prefix);
  const options = { url: REDIS_URL, prefix, idleTtlMs: 60_000, historyLimit: 10 };
  return { prefix, one: createRedisTaskRegistry(options), two: createRedisTaskRegistry(options) };
}

/** A task as the registry wrote it before tenants were recorded: the owner's keys, no tenant field. */
async function writeAsBeforeTenants(prefix: string, owner: string, id: string, contextId: string): Promise<void> {
  const task = taskOf(id, { contextId, timestamp: '2026-01-01T00:00:01Z' });
  const member = sortMember(task);
  const scope = `${prefix}o:${owner}:`;
  await probe
    .multi()
    .hset(`${prefix}t:${id}`, 'v', '1', 'd', JSON.stringify({ task, upstream: 'up' }), 'o', owner, 'u', String(Date.now() * 1000))
    .zadd(`${scope}all`, 0, member)
    .zadd(`${scope}s:${task.status.state}`, 0, member)
    .zadd(`${scope}c:${contextId}`, 0, member)
    .set(`${scope}l:${contextId}`, id)
    .hset(`${scope}idx`, id, JSON.stringify({ m: member, s: task.status.state, k: contextId }))
    .set(`${prefix}ctx:${contextId}`, owner)
    .exec();
}

describe('redis registry: tenants', () => {
  it("keeps a tenant's tasks under keys of their own, and the default tenant's where an owner's were", async () => {
    const { prefix, one, two } = registries();
    try {
      await one.put(taskOf('in-acme', { contextId: 'c1' }), { owner: 'alice', upstream: 'up', tenant: 'acme' });
      await one.put(taskOf('in-default', { contextId: 'c1' }), { owner: 'alice', upstream: 'up' });
      expect(await probe.hget(`${prefix}t:in-acme`, 'n')).toBe('acme');
      expect(await probe.hexists(`${prefix}t:in-default`, 'n')).toBe(0);
      expect((await probe.zrange(`${prefix}o:alice:t:acme:all`, 0, -1)).map((member) => member.slice(20))).toEqual(['in-acme']);
      expect((await probe.zrange(`${prefix}o:alice:all`, 0, -1)).map((member) => member.slice(20))).toEqual(['in-default']);
      // A context's latest task is the owner's, whatever its tenant: one pointer, under the key it had before tenants.
      expect(await probe.get(`${prefix}o:alice:l:c1`)).toBe('in-default');
      await one.apply(
        { statusUpdate: { taskId: 'in-acme', contextId: 'c1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } },
        {
          owner: 'alice',
          upstream: 'up',
          tenant: 'acme',
        },
      );
      expect(await probe.get(`${prefix}o:alice:l:c1`)).toBe('in-acme');
      expect(await probe.exists(`${prefix}o:alice:t:acme:l:c1`)).toBe(0);
      expect(await two.latestInContext('c1', 'alice')).toMatchObject({ task: { id: 'in-acme' }, tenant: 'acme' });
      expect(await two.scopeOf('in-acme')).toEqual({ owner: 'alice', tenant: 'acme' });
      // The context's owner stays under the key it had before tenants; its tenant, beside it, with its TTL.
      expect(await probe.get(`${prefix}ctx:c1`)).toBe('alice');
      expect(await probe.get(`${prefix}ctxn:c1`)).toBe('acme');
      expect(await probe.pttl(`${prefix}ctxn:c1`)).toBeGreaterThan(0);
      expect(await two.contextScope('c1')).toEqual({ owner: 'alice', tenant: 'acme' });
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('reads a record written before tenants as the default tenant, and writes on it as before', async () => {
    const { prefix, one, two } = registries();
    try {
      await writeAsBeforeTenants(prefix, 'alice', 'old-1', 'old-ctx');
      expect(await one.scopeOf('old-1')).toEqual({ owner: 'alice', tenant: '' });
      // Its context, an owner and no tenant key, has no tenant recorded (its owner's under any), not the default tenant.
      expect(await two.contextScope('old-ctx')).toStrictEqual({ owner: 'alice', tenant: undefined });
      expect((await one.list({}, 'alice')).tasks.map((task) => task.id)).toEqual(['old-1']);
      expect((await one.list({ tenant: 'acme' }, 'alice')).tasks).toEqual([]);
      expect((await one.latestInContext('old-ctx', 'alice'))?.task?.id).toBe('old-1');
      // Written before the pointer existed: found among the context's tasks.
      await probe.del(`${prefix}o:alice:l:old-ctx`);
      expect(await two.latestInContext('old-ctx', 'alice')).toMatchObject({ task: { id: 'old-1' }, tenant: '' });
      // A write in the default tenant goes on (from either replica); one under a tenant is not its own.
      expect(await two.apply(status('old-1', 'TASK_STATE_COMPLETED'), { owner: 'alice', upstream: 'up', tenant: 'acme' })).toBeUndefined();
      const done = await two.apply(status('old-1', 'TASK_STATE_COMPLETED', { timestamp: '2026-01-01T00:00:02Z' }), {
        owner: 'alice',
        upstream: 'up',
      });
      expect(done?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(await probe.hexists(`${prefix}t:old-1`, 'n')).toBe(0);
      // The owner's write there records the context's tenant, the default one as a value of its own.
      expect(await probe.get(`${prefix}ctxn:old-ctx`)).toBe('');
      expect(await one.contextScope('old-ctx')).toEqual({ owner: 'alice', tenant: '' });
      expect((await one.list({ status: 'TASK_STATE_COMPLETED' }, 'alice')).tasks.map((task) => task.id)).toEqual(['old-1']);
      expect((await one.list({ status: 'TASK_STATE_WORKING' }, 'alice')).tasks).toEqual([]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("lists no task that a stale index entry files under another state or context than its record's", async () => {
    const { prefix, one } = registries();
    try {
      await one.put(taskOf('t1', { contextId: 'c1', timestamp: '2026-01-01T00:00:01Z' }), { owner: 'alice', upstream: 'up', tenant: 'acme' });
      // What a replica of before tenants leaves when it finishes a tenant's task: the record says completed,
      // in context c1, and the tenant's own indexes still hold the entries of before (a working task in c2).
      const record = JSON.parse((await probe.hget(`${prefix}t:t1`, 'd'))!) as { task: { status: { state: string } } };
      record.task.status.state = 'TASK_STATE_COMPLETED';
      const member = (await probe.zrange(`${prefix}o:alice:t:acme:all`, 0, -1))[0]!;
      await probe.multi().hset(`${prefix}t:t1`, 'd', JSON.stringify(record)).zadd(`${prefix}o:alice:t:acme:c:c2`, 0, member).exec();
      expect(await probe.zrange(`${prefix}o:alice:t:acme:s:TASK_STATE_WORKING`, 0, -1)).toEqual([member]);
      const ids = async (request: Parameters<typeof one.list>[0]) =>
        (await one.list({ tenant: 'acme', ...request }, 'alice')).tasks.map((task) => task.id);
      expect(await ids({ status: 'TASK_STATE_WORKING' })).toEqual([]);
      expect(await ids({ contextId: 'c2' })).toEqual([]);
      expect(await ids({ contextId: 'c1' })).toEqual(['t1']);
      expect(await ids({})).toEqual(['t1']);
    } finally {
      await one.close();
    }
  });
});

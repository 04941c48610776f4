/**
 * The Redis task registry's latest task in a context, read where every message that names a context reads it:
 * the owner's pointer and the task it names in one round trip, and the same answer as before wherever the pointer
 * names no task to give (none there, its task gone, another owner's or another context's task), a damaged record
 * and a Redis out of reach failing as they did. Against a real Redis.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { GATEWAY_FAILURES } from '../../src/model/index.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';
import { taskOf } from './registry-fixtures.js';

beforeAll(requireRedis);

const probe = new Redis(REDIS_URL, { lazyConnect: true });
const prefixes: string[] = [];
afterAll(async () => {
  await Promise.all(prefixes.map(deleteRedisKeys));
  await probe.quit();
});

const ALICE = { owner: 'alice', upstream: 'up' };
const BOB = { owner: 'bob', upstream: 'up' };

/** A registry on a connection of its own, and the names of the commands that connection sends from now on. */
async function registryCounted() {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  prefixes.push(prefix);
  const redis = new Redis(REDIS_URL);
  await redis.ping();
  const sent: string[] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, ...rest) => {
    sent.push(command.name);
    return send(command, ...rest);
  };
  const registry = createRedisTaskRegistry({ redis, prefix, idleTtlMs: 60_000, historyLimit: 10 });
  const close = async () => {
    await registry.close();
    await redis.quit();
  };
  return { prefix, registry, sent, close };
}

describe("redis registry: a context's latest task, from its pointer", () => {
  it('reads the pointer and the task it names in one command', async () => {
    const { registry, sent, close } = await registryCounted();
    try {
      await registry.put(taskOf('A1', { contextId: 'ctx-1' }), ALICE);
      // The first read may load the script (EVAL after a NOSCRIPT); the one measured finds it loaded.
      expect((await registry.latestInContext('ctx-1', 'alice'))?.task.id).toBe('A1');
      sent.length = 0;
      expect(await registry.latestInContext('ctx-1', 'alice')).toMatchObject({ task: { id: 'A1' }, tenant: '' });
      // An EVAL after it would be ioredis sending the script again to a Redis that forgot it (another suite's SCRIPT FLUSH).
      expect(sent.filter((name) => name !== 'eval')).toEqual(['evalsha']);
    } finally {
      await close();
    }
  });

  it('reads a context without a pointer in one command: none in a new one; its tasks, as before, in one written before pointers', async () => {
    const { prefix, registry, sent, close } = await registryCounted();
    try {
      // The first read may load the script (EVAL after a NOSCRIPT); the ones measured find it loaded.
      expect(await registry.latestInContext('ctx-0', 'alice')).toBeUndefined();
      sent.length = 0;
      // Every conversation's opening message asks of the context it opens.
      expect(await registry.latestInContext('ctx-new', 'alice')).toBeUndefined();
      expect(sent.filter((name) => name !== 'eval')).toEqual(['evalsha']);

      await registry.put(taskOf('A0', { contextId: 'ctx-1' }), ALICE);
      await registry.put(taskOf('A1', { contextId: 'ctx-1' }), ALICE);
      await probe.del(`${prefix}o:alice:l:ctx-1`);
      sent.length = 0;
      expect(await registry.latestInContext('ctx-1', 'alice')).toMatchObject({ task: { id: 'A1' }, tenant: '' });
      // The context's tasks read together (a pipeline), the index's members having come with the script's answer.
      expect(sent.filter((name) => name !== 'eval')).toEqual(['evalsha', 'hmget', 'hmget']);
    } finally {
      await close();
    }
  });

  it("answers from the context's tasks, as before, when the pointer names a gone task, another owner's or another context's", async () => {
    const { prefix, registry, close } = await registryCounted();
    const pointer = `${prefix}o:alice:l:ctx-1`;
    try {
      await registry.put(taskOf('A0', { contextId: 'ctx-1' }), ALICE);
      await registry.put(taskOf('A1', { contextId: 'ctx-1' }), ALICE);
      await registry.put(taskOf('A2', { contextId: 'ctx-2' }), ALICE);
      await registry.put(taskOf('B1', { contextId: 'ctx-1' }), BOB);
      expect(await probe.get(pointer)).toBe('A1');
      expect((await registry.latestInContext('ctx-1', 'alice'))?.task.id).toBe('A1');

      await probe.set(pointer, 'B1');
      expect((await registry.latestInContext('ctx-1', 'alice'))?.task.id).toBe('A1');
      expect((await registry.latestInContext('ctx-1', 'bob'))?.task.id).toBe('B1');

      await probe.set(pointer, 'A2');
      expect((await registry.latestInContext('ctx-1', 'alice'))?.task.id).toBe('A1');

      await probe.set(pointer, 'never-written');
      expect((await registry.latestInContext('ctx-1', 'alice'))?.task.id).toBe('A1');

      await probe.set(pointer, 'A1');
      await probe.del(`${prefix}t:A1`);
      expect(await registry.latestInContext('ctx-1', 'alice')).toMatchObject({ task: { id: 'A0' }, tenant: '' });

      // Neither the pointer nor a task of the context's: none.
      expect(await registry.latestInContext('ctx-3', 'alice')).toBeUndefined();
      await probe.set(`${prefix}o:bob:l:ctx-3`, 'A2');
      expect(await registry.latestInContext('ctx-3', 'bob')).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('gives the tenant of the task the pointer names, and fails on a damaged record rather than reading it as gone', async () => {
    const { prefix, registry, close } = await registryCounted();
    try {
      await registry.put(taskOf('A0', { contextId: 'ctx-1' }), ALICE);
      await registry.put(taskOf('A1', { contextId: 'ctx-1' }), { ...ALICE, tenant: 'acme' });
      expect(await registry.latestInContext('ctx-1', 'alice')).toMatchObject({ task: { id: 'A1' }, tenant: 'acme' });
      await probe.hset(`${prefix}t:A1`, 'd', '{"task":');
      await expect(registry.latestInContext('ctx-1', 'alice')).rejects.toThrow(SyntaxError);
    } finally {
      await close();
    }
  });

  it('is refused for now when no Redis answers, as every registry read is', async () => {
    const gone = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
    const registry = createRedisTaskRegistry({ redis: gone, prefix: `a2a-bridge-test:${randomUUID()}:`, idleTtlMs: 60_000, historyLimit: 10 });
    try {
      await expect(registry.latestInContext('ctx-1', 'alice')).rejects.toMatchObject({
        code: -32603,
        message: GATEWAY_FAILURES.registryOutOfReach,
        retryAfterSeconds: expect.any(Number),
      });
    } finally {
      await registry.close();
      gone.disconnect();
    }
  });
});

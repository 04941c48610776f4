import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createMemoryTaskAliases, createRedisTaskAliases, type TaskAliases } from '../../src/core/task-aliases/index.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const opened: TaskAliases[] = [];
afterAll(async () => {
  for (const aliases of opened) await aliases.close();
});

const stores: Array<[string, () => TaskAliases]> = [
  ['memory', () => createMemoryTaskAliases({ max: 1_000, idleTtlMs: 60_000 })],
  ['redis', () => createRedisTaskAliases({ url: REDIS_URL, prefix: `a2a-bridge-test:${randomUUID()}:`, idleTtlMs: 60_000 })],
];

describe.each(stores)('task aliases (%s)', (_name, open) => {
  const fresh = (): TaskAliases => {
    const aliases = open();
    opened.push(aliases);
    return aliases;
  };

  it("keeps each owner's ids apart: the same id claimed by two owners is two aliases", async () => {
    const aliases = fresh();
    expect(await aliases.claim('mine', 'alice')).toBe(true);
    expect(await aliases.claim('mine', 'bob')).toBe(true);
    // A pending id may be claimed again by its owner.
    expect(await aliases.claim('mine', 'alice')).toBe(true);
    expect(await aliases.lookup('mine', 'alice')).toEqual({});
    expect(await aliases.lookup('mine', 'carol')).toBeUndefined();
  });

  it('binds an id to its upstream task both ways, per owner', async () => {
    const aliases = fresh();
    await aliases.claim('mine', 'alice');
    await aliases.bind('mine', 'alice', 'up-1');
    await aliases.claim('mine', 'bob');
    await aliases.bind('mine', 'bob', 'up-2');
    expect(await aliases.lookup('mine', 'alice')).toEqual({ upstream: 'up-1' });
    expect(await aliases.lookup('mine', 'bob')).toEqual({ upstream: 'up-2' });
    expect(await aliases.clientIdOf('up-1', 'alice')).toBe('mine');
    expect(await aliases.clientIdOf('up-1', 'bob')).toBeUndefined();
    // A bound id is not pending any more: not even its owner opens it again.
    expect(await aliases.claim('mine', 'alice')).toBe(false);
  });
});

describe('redis task aliases', () => {
  it('still find, for its owner only, an alias bound in the one shared key of before ids were kept per owner', async () => {
    const prefix = `a2a-bridge-test:${randomUUID()}:`;
    const aliases = createRedisTaskAliases({ url: REDIS_URL, prefix, idleTtlMs: 60_000 });
    opened.push(aliases);
    const redis = new Redis(REDIS_URL);
    try {
      await redis.set(`${prefix}task-alias:old-id`, JSON.stringify({ owner: 'alice', upstream: 'up-old' }), 'PX', 60_000);
      expect(await aliases.lookup('old-id', 'alice')).toEqual({ upstream: 'up-old' });
      expect(await aliases.lookup('old-id', 'bob')).toBeUndefined();
    } finally {
      redis.disconnect();
    }
  });
});

describe('redis task aliases holding values the store never writes', () => {
  it.each(['not json{', '42', '[]', 'null', '{"upstream":42}', '{"owner":7,"upstream":"up"}'])(
    '%s: no alias (not a Redis out of reach), its id claimable again, the key told once without the value',
    async (value) => {
      const prefix = `a2a-bridge-test:${randomUUID()}:`;
      const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
      const logger = { warn: (fields: object, message: string) => warnings.push({ fields: fields as Record<string, unknown>, message }) };
      const aliases = createRedisTaskAliases({ url: REDIS_URL, prefix, idleTtlMs: 60_000, logger });
      opened.push(aliases);
      const redis = new Redis(REDIS_URL);
      try {
        await aliases.claim('mine', 'alice');
        const [key] = await redis.keys(`${prefix}task-alias-own:*`);
        await redis.set(key as string, value, 'PX', 60_000);
        await redis.set(`${prefix}task-alias:mine`, value, 'PX', 60_000);
        expect(await aliases.lookup('mine', 'alice')).toBeUndefined();
        expect(await aliases.lookup('mine', 'alice')).toBeUndefined();
        expect(await aliases.claim('mine', 'alice')).toBe(true);
        const told = warnings.filter((warning) => warning.fields.key === key);
        expect(told).toHaveLength(1);
        // The key and the store, nothing of the value (it may be anything).
        expect(Object.keys(told[0]?.fields ?? {}).sort()).toEqual(['key', 'store']);
        expect(told[0]?.message).not.toContain(value);
      } finally {
        redis.disconnect();
      }
    },
  );

  it('many such keys are told in one line a minute (the next one counts those left out), nothing kept per key', async () => {
    const prefix = `a2a-bridge-test:${randomUUID()}:`;
    const warnings: Array<Record<string, unknown>> = [];
    const logger = { warn: (fields: object) => warnings.push(fields as Record<string, unknown>) };
    const aliases = createRedisTaskAliases({ url: REDIS_URL, prefix, idleTtlMs: 60_000, logger });
    opened.push(aliases);
    const redis = new Redis(REDIS_URL);
    try {
      // Values of another writer under many ids (the shared key of before: one read each).
      const ids = Array.from({ length: 20 }, (_, i) => `flood-${i}`);
      for (const id of ids) await redis.set(`${prefix}task-alias:${id}`, 'not json{', 'PX', 60_000);
      for (const id of ids) expect(await aliases.lookup(id, 'alice')).toBeUndefined();
      expect(warnings).toEqual([{ store: 'task-aliases', key: `${prefix}task-alias:flood-0` }]);
    } finally {
      redis.disconnect();
    }
  });
});

describe('memory task aliases', () => {
  it('keep at most `max` ids, forgetting the least recently used first', async () => {
    const aliases = createMemoryTaskAliases({ max: 3, idleTtlMs: 0 });
    for (const id of ['a', 'b', 'c']) await aliases.claim(id, 'alice');
    await aliases.lookup('a', 'alice');
    await aliases.claim('d', 'alice');
    expect(await aliases.lookup('b', 'alice')).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(await aliases.lookup(id, 'alice')).toEqual({});
    await aliases.bind('d', 'alice', 'up-d');
    for (const id of ['x', 'y', 'z']) await aliases.bind(id, 'alice', `up-${id}`);
    expect(await aliases.clientIdOf('up-d', 'alice')).toBeUndefined();
    expect(await aliases.clientIdOf('up-z', 'alice')).toBe('z');
  });

  it("keep another owner's id however many ids one owner names: the flood forgets its own", async () => {
    const aliases = createMemoryTaskAliases({ max: 10, idleTtlMs: 0 });
    await aliases.claim('mine', 'alice');
    await aliases.bind('mine', 'alice', 'up-alice');
    for (let i = 0; i < 50; i++) {
      await aliases.claim(`flood-${i}`, 'bob');
      await aliases.bind(`flood-${i}`, 'bob', `up-bob-${i}`);
    }
    expect(await aliases.lookup('mine', 'alice')).toEqual({ upstream: 'up-alice' });
    expect(await aliases.clientIdOf('up-alice', 'alice')).toBe('mine');
    expect(await aliases.claim('mine', 'alice')).toBe(false);
    // Bob keeps his latest, as an LRU of his own would; his same id is still his own alias, not Alice's.
    expect(await aliases.lookup('flood-49', 'bob')).toEqual({ upstream: 'up-bob-49' });
    expect(await aliases.lookup('flood-0', 'bob')).toBeUndefined();
    expect(await aliases.lookup('mine', 'bob')).toBeUndefined();
  });

  it('forget an id not used for the idle TTL; a lookup counts as a use', async () => {
    // The clock the TTL reads is the test's: slept for, a loaded host overshot the 40 ms past the TTL.
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => void vi.useRealTimers());
    const aliases = createMemoryTaskAliases({ max: 10, idleTtlMs: 60 });
    await aliases.bind('used', 'alice', 'up-used');
    await aliases.bind('idle', 'alice', 'up-idle');
    vi.advanceTimersByTime(40);
    expect(await aliases.lookup('used', 'alice')).toEqual({ upstream: 'up-used' });
    expect(await aliases.clientIdOf('up-used', 'alice')).toBe('used');
    vi.advanceTimersByTime(40);
    expect(await aliases.lookup('used', 'alice')).toEqual({ upstream: 'up-used' });
    expect(await aliases.clientIdOf('up-used', 'alice')).toBe('used');
    expect(await aliases.lookup('idle', 'alice')).toBeUndefined();
    expect(await aliases.clientIdOf('up-idle', 'alice')).toBeUndefined();
  });

  it('take no room at start for the ids they may keep', () => {
    const held = (): number => {
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const before = held();
    // With room allocated per possible entry, one million would take about 80 MiB here.
    const aliases = createMemoryTaskAliases({ max: 1_000_000, idleTtlMs: 60_000 });
    expect(held() - before).toBeLessThan(8 * 1024 * 1024);
    void aliases.close();
  });
});

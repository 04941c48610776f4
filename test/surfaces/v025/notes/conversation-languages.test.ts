import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryConversationLanguages,
  createRedisConversationLanguages,
  type ConversationLanguages,
} from '../../../../src/surfaces/v025/notes/conversation-languages.js';
import { REDIS_URL, requireRedis } from '../../../support/redis.js';

beforeAll(requireRedis);

const opened: ConversationLanguages[] = [];
afterAll(async () => {
  for (const languages of opened) await languages.close();
});

const prefix = `a2a-bridge-test:${randomUUID()}:`;
const stores: Array<[string, () => ConversationLanguages]> = [
  ['memory', () => createMemoryConversationLanguages({ max: 100, idleTtlMs: 60_000 })],
  ['redis', () => createRedisConversationLanguages({ url: REDIS_URL, prefix: `${prefix}${randomUUID()}:`, idleTtlMs: 60_000 })],
];

describe.each(stores)('conversation languages (%s)', (_name, open) => {
  const fresh = (): ConversationLanguages => {
    const languages = open();
    opened.push(languages);
    return languages;
  };

  it('remembers the language a conversation was last written in, per caller and context; nothing without a context', async () => {
    const languages = fresh();
    await languages.note('alice', 'C1', 'zh');
    await languages.note('bob', 'C1', 'ja');
    await languages.note('alice', 'C1', 'en');
    await languages.note('alice', undefined, 'ja');
    expect(
      await Promise.all([languages.of('alice', 'C1'), languages.of('bob', 'C1'), languages.of('alice', 'C2'), languages.of('alice', undefined)]),
    ).toEqual(['en', 'ja', undefined, undefined]);
  });

  it("one caller's principal that ends like another's context never reads it", async () => {
    const languages = fresh();
    await languages.note('a:b', 'c', 'zh');
    expect(await languages.of('a', 'b:c')).toBeUndefined();
  });
});

describe('conversation languages in memory', () => {
  it("keep another caller's conversation however many one caller opens: the flood forgets its own", async () => {
    const languages = createMemoryConversationLanguages({ max: 10, idleTtlMs: 0 });
    opened.push(languages);
    await languages.note('alice', 'C', 'ja');
    for (let i = 0; i < 50; i++) await languages.note('bob', `flood-${i}`, 'en');
    expect(await languages.of('alice', 'C')).toBe('ja');
    expect(await languages.of('bob', 'flood-49')).toBe('en');
    expect(await languages.of('bob', 'flood-0')).toBeUndefined();
  });

  it('are a plain LRU for a single caller: its least recently used conversation goes first', async () => {
    const languages = createMemoryConversationLanguages({ max: 2, idleTtlMs: 0 });
    opened.push(languages);
    await languages.note('alice', 'C1', 'ja');
    await languages.note('alice', 'C2', 'zh');
    await languages.of('alice', 'C1');
    await languages.note('alice', 'C3', 'en');
    expect(await Promise.all(['C1', 'C2', 'C3'].map((context) => languages.of('alice', context)))).toEqual(['ja', undefined, 'en']);
  });
});

describe('conversation languages shared through Redis', () => {
  it('a replica reads what another wrote; a value that is no language of the facade is none', async () => {
    const shared = `${prefix}shared:`;
    const [one, two] = [0, 1].map(() => createRedisConversationLanguages({ url: REDIS_URL, prefix: shared, idleTtlMs: 60_000 }));
    opened.push(one!, two!);
    await one!.note('alice', 'C', 'ja');
    expect(await two!.of('alice', 'C')).toBe('ja');
    const { Redis } = await import('ioredis');
    const raw = new Redis(REDIS_URL);
    await raw.set(`${shared}conversation-language:5:alice:D`, 'fr');
    raw.disconnect();
    expect(await two!.of('alice', 'D')).toBeUndefined();
  });

  it('a Redis that does not answer leaves the turn to its history: nothing is thrown', async () => {
    const down = createRedisConversationLanguages({ url: 'redis://127.0.0.1:1', prefix, idleTtlMs: 0 });
    opened.push(down);
    await expect(down.note('alice', 'C', 'zh')).resolves.toBeUndefined();
    await expect(down.of('alice', 'C')).resolves.toBeUndefined();
  });
});

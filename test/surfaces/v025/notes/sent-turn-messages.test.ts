/**
 * The note of each conversation's latest turn message (sent-turn-messages.ts) that tells a retry from a new message:
 * one per caller and conversation, the latest turn's, kept for an hour at most (REPEAT_WINDOW_MS) in memory and in
 * Redis alike, never another caller's.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallContext } from '../../../../src/core/agent-port.js';
import type { V025FacadeDeps } from '../../../../src/surfaces/v025/deps.js';
import { endedTurnRepeated } from '../../../../src/surfaces/v025/turn/repeated-turn.js';
import {
  createMemorySentTurnMessages,
  createRedisSentTurnMessages,
  REPEAT_WINDOW_MS,
  type SentTurnMessages,
} from '../../../../src/surfaces/v025/notes/sent-turn-messages.js';
import { REDIS_URL, requireRedis } from '../../../support/redis.js';

let redis: Redis;
const prefix = `a2a-bridge-test:${randomUUID()}:`;
beforeAll(async () => {
  await requireRedis();
  redis = new Redis(REDIS_URL);
});
afterAll(() => redis?.disconnect());

const stores: Record<string, () => SentTurnMessages> = {
  memory: () => createMemorySentTurnMessages({ max: 100, idleTtlMs: 0 }),
  redis: () => createRedisSentTurnMessages(redis, { prefix, ttlMs: 0 }),
};

describe.each(Object.keys(stores))('sent turn messages (%s)', (name) => {
  it("keeps the latest turn's message per caller and conversation", async () => {
    const notes = stores[name]!();
    const contextId = randomUUID();
    await notes.note('alice', contextId, { messageId: 'm-1', digest: 'd-1' });
    await notes.note('alice', contextId, { messageId: 'm-2', digest: 'd-2' });
    expect(await notes.of('alice', contextId)).toEqual({ messageId: 'm-2', digest: 'd-2' });
    expect(await notes.of('bob', contextId)).toBeUndefined();
    expect(await notes.of('alice', randomUUID())).toBeUndefined();
  });
});

it('Redis forgets a note after the window at most, or after the store idle time when shorter', async () => {
  const contextId = randomUUID();
  await createRedisSentTurnMessages(redis, { prefix, ttlMs: 0 }).note('alice', contextId, { messageId: 'm' });
  const [key] = await redis.keys(`${prefix}sent-turn-message:*${contextId}`);
  const ttl = await redis.pttl(key!);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(REPEAT_WINDOW_MS);
  const shorter = randomUUID();
  await createRedisSentTurnMessages(redis, { prefix, ttlMs: 60_000 }).note('alice', shorter, { messageId: 'm' });
  const [shortKey] = await redis.keys(`${prefix}sent-turn-message:*${shorter}`);
  expect(await redis.pttl(shortKey!)).toBeLessThanOrEqual(60_000);
});

it('a message that opens its conversation reads no note (no turn of it has ended); one that names its context does', async () => {
  const read: string[] = [];
  const notes: SentTurnMessages = { note: async () => undefined, of: async (_principal, contextId) => void read.push(contextId) };
  const sent = { messageId: 'm-1', parts: [{ text: 'Create a VPC' }] };
  const [deps, ctx] = [{} as V025FacadeDeps, {} as CallContext];
  // begun-turn.ts asks with the context the caller's message names: none for a message that opens its conversation.
  expect(await endedTurnRepeated({ principal: 'alice', contextId: undefined }, notes, deps, ctx, sent)).toBeUndefined();
  expect(read).toEqual([]);
  const contextId = randomUUID();
  expect(await endedTurnRepeated({ principal: 'alice', contextId }, notes, deps, ctx, sent)).toBeUndefined();
  expect(read).toEqual([contextId]);
});

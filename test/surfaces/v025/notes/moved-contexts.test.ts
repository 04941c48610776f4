import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendMessageRequest } from '../../../../src/model/index.js';
import {
  createMemoryMovedContexts,
  createRedisMovedContexts,
  inMovedContext,
  noteMove,
  type MovedContexts,
} from '../../../../src/surfaces/v025/notes/moved-contexts.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../../support/redis.js';

const prefix = `a2a-bridge-test:moved-contexts:${randomUUID()}:`;
let redis: Redis | undefined;
beforeAll(async () => {
  await requireRedis();
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await redis?.quit();
  await deleteRedisKeys(prefix);
});

const stores: Array<[string, () => MovedContexts]> = [
  ['memory', () => createMemoryMovedContexts({ max: 100, idleTtlMs: 60_000 })],
  ['redis', () => createRedisMovedContexts(redis!, { prefix: `${prefix}${randomUUID()}:`, ttlMs: 60_000 })],
];

const message = (contextId?: string): SendMessageRequest => ({
  message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...(contextId ? { contextId } : {}) },
});

describe.each(stores)('conversations moved to a fresh context (%s)', (_name, open) => {
  it("sends a moved conversation's messages to its fresh context, under either id, for its own caller only", async () => {
    const moves = open();
    expect((await inMovedContext(message('old'), 'alice', moves)).message.contextId).toBe('old');
    await noteMove(moves, 'alice', ['old', undefined], 'fresh');
    expect((await inMovedContext(message('old'), 'alice', moves)).message.contextId).toBe('fresh');
    expect((await inMovedContext(message('old'), 'bob', moves)).message.contextId).toBe('old');
    expect((await inMovedContext(message(), 'alice', moves)).message.contextId).toBeUndefined();
    // Moved again (iac-code refused the fresh one too): both ids it went by go to the newest.
    await noteMove(moves, 'alice', ['old', 'fresh'], 'fresher');
    expect((await inMovedContext(message('old'), 'alice', moves)).message.contextId).toBe('fresher');
    expect((await inMovedContext(message('fresh'), 'alice', moves)).message.contextId).toBe('fresher');
  });
});

describe('a store that fails', () => {
  it('leaves the message on its own context, and a note that fails fails no turn', async () => {
    const broken: MovedContexts = { of: () => Promise.reject(new Error('down')), note: () => Promise.reject(new Error('down')) };
    expect((await inMovedContext(message('old'), 'alice', broken)).message.contextId).toBe('old');
    await expect(noteMove(broken, 'alice', ['old'], 'fresh')).resolves.toBeUndefined();
  });
});

/**
 * What a Bailian conversation's messages ask the Redis stores of the facade's own notes and of the context's latest
 * task, each a round trip on the turn's path to a Redis that is remote in production. Against a real Redis, the fake
 * iac-code behind, the user shown the same answers:
 * - a message that opens a conversation (no contextId) gets its context id from the facade (begun-turn.ts): nothing is
 *   recorded under that id yet, so the facade reads neither the context's latest task nor its language (the core's
 *   admission still reads the latest task once it holds the context's lane);
 * - the conversation's next message reads the note of a move (moved-contexts.ts) first, then, after the wait for the
 *   turn its caller just left, its cut turn, its latest turn's message and its language in one MGET (turn-notes.ts),
 *   then the caller's id of the task it continues.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';

const prefix = `a2a-bridge-test:conversation-note-reads:${randomUUID()}:`;
let fake: FakeIacCode;
let gateway: RunningGateway;
/** Every command this process's ioredis clients send under the test's prefix, as its name and keys (their kind). */
const sent: string[][] = [];
/** Each of those commands answered, with how many commands had been sent by then. */
const answered: Array<{ named: string[]; after: number }> = [];

beforeAll(async () => {
  await requireRedis();
  const send = Redis.prototype.sendCommand;
  vi.spyOn(Redis.prototype, 'sendCommand').mockImplementation(function (this: Redis, command, ...rest) {
    const keys = command.args.map(String).filter((arg) => arg.startsWith(prefix));
    if (keys.length === 0) return send.call(this, command, ...rest);
    const named = [command.name, ...keys.map((key) => key.slice(prefix.length))];
    sent.push(named);
    const answer = send.call(this, command, ...rest) as Promise<unknown>;
    void answer.then(
      () => answered.push({ named, after: sent.length }),
      () => undefined,
    );
    return answer;
  });
  fake = await startFakeIacCode({ script: { before: ['Planning ', 'the VPC.'], after: ['Deployed.'], artifact: { filename: 'main.tf' } } });
  gateway = await startFacadeGateway({ upstream: { url: fake.url }, store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  vi.restoreAllMocks();
  await deleteRedisKeys(prefix);
});

/** The facade's notes (by their kind), and the reads of the context's latest task (`latest`), in the order sent. */
function facadeReads(contextId: string): string[] {
  const NOTES = ['moved-context:', 'conversation-cut-turn:', 'sent-turn-message:', 'conversation-language:', 'task-alias-of:'];
  const kind = (key: string): string | undefined =>
    key.endsWith(`l:${contextId}`) ? 'latest' : NOTES.find((note) => key.startsWith(note))?.slice(0, -1);
  return sent
    .map(([name, ...keys]) => [name!.toLowerCase(), ...keys.map(kind)])
    .filter(([name, ...kinds]) => (name === 'get' || name === 'mget' || name === 'evalsha' || name === 'eval') && kinds.some(Boolean))
    .map(([name, ...kinds]) => `${name} ${kinds.filter(Boolean).join(' ')}`);
}

/** Sends `text` in the conversation `contextId` (none: a new one); the user's reading and the conversation. */
async function send(text: string, contextId?: string): Promise<{ read: string; contextId: string }> {
  const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text, ...(contextId ? { contextId } : {}) }) });
  if (!body.result) throw new Error(JSON.stringify(body));
  return { read: sentText(body.result), contextId: body.result.contextId };
}

describe("a Bailian conversation's reads of the facade's notes, store: redis", () => {
  it('a message that opens a conversation: its latest task read once, by the core, not by the facade that made its context id', async () => {
    sent.length = 0;
    const opened = await send('create a vpc in hangzhou please');
    expect(opened.read).toContain('Planning the VPC.');
    expect(facadeReads(opened.contextId).filter((read) => read === 'evalsha latest')).toHaveLength(1);
  });

  it('a message that opens a conversation: none of its notes read (its language is noted, for its next message)', async () => {
    sent.length = 0;
    const opened = await send('create a vpc in hangzhou please');
    expect(opened.read).toContain('Planning the VPC.');
    expect(facadeReads(opened.contextId).filter((read) => read !== 'evalsha latest')).toEqual([]);
  });

  it("the conversation's next message: its move, then its cut turn, latest message and language in one read, then its task's id", async () => {
    const opened = await send('create a vpc in hangzhou please');
    sent.length = 0;
    const next = await send('and a subnet there please', opened.contextId);
    expect(next.contextId).toBe(opened.contextId);
    expect(next.read).toContain('Planning the VPC.');
    expect(facadeReads(opened.contextId).filter((read) => read !== 'evalsha latest')).toEqual([
      'get moved-context',
      'mget conversation-cut-turn sent-turn-message conversation-language',
      'get task-alias-of',
    ]);
  });

  it("the conversation's next message, which says its language: the caller's id of its task read as that language is noted, not after", async () => {
    const opened = await send('create a vpc in hangzhou please');
    sent.length = 0;
    answered.length = 0;
    const next = await send('and a subnet there please', opened.contextId);
    expect(next.read).toContain('Planning the VPC.');
    const at = (kind: string, name: string) => sent.findIndex(([sentName, key]) => sentName === name && key!.startsWith(kind));
    const aliasRead = at('task-alias-of:', 'get');
    const languageNoted = answered.find(({ named: [name, key] }) => name === 'set' && key!.startsWith('conversation-language:'));
    expect(aliasRead).toBeGreaterThanOrEqual(0);
    // Sent before the note's answer came back: the two round trips overlap.
    expect(aliasRead).toBeLessThan(languageNoted!.after);
  });
});

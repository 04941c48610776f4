/**
 * The message after a turn its user stopped reading is, most often, that same message again (Bailian's retry, its
 * user sending it again). Its rest is then the answer to it: the user must not be told to send it again once the rest
 * is read (it would run twice). A note keeps a digest of the message, never its text, and notes of the release
 * before (no digest) still read, as before.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallContext } from '../../../../src/core/agent-port.js';
import type { Message, Part, StreamResponse, Task } from '../../../../src/model/index.js';
import {
  createLocalCutTurnNotes,
  createRedisCutTurnNotes,
  type CutTurnNote,
  type CutTurnNotes,
} from '../../../../src/surfaces/v025/notes/cut-turn-notes.js';
import { cutTurnOf, cutTurnRest } from '../../../../src/surfaces/v025/recovery/cut-turns.js';
import type { V025FacadeDeps } from '../../../../src/surfaces/v025/deps.js';
import { messageDigest } from '../../../../src/surfaces/v025/turn/repeated-message.js';
import { wordsIn } from '../../../../src/surfaces/v025/reply-options.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../../support/redis.js';

const PROMPT = '请帮我创建一个专有网络，地域杭州';
const message = (...parts: Part[]): Message => ({ messageId: randomUUID(), role: 'ROLE_USER', parts });
const text = (value: string): Message => message({ text: value });
const note = (sent: Message): CutTurnNote => ({ taskId: 'task-1', shown: { sent, passed: ['第一段：开始规划。'] } });

/** The task as the agent has it once the turn it went on with is over. */
const finished: Task = {
  id: 'task-1',
  contextId: 'ctx',
  status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'done', role: 'ROLE_AGENT', parts: [{ text: '完成：VPC 已就绪。' }] } },
  history: [{ messageId: 'said', role: 'ROLE_AGENT', parts: [{ text: '第一段：开始规划。' }] }],
};
const deps = { port: { getTask: async () => finished } } as unknown as V025FacadeDeps;
const ctx = {} as CallContext;

/** What the user reads first when `next` is sent after the noted turn: the words that open its rest. */
async function leadRead(notes: CutTurnNotes, next: Message, language: 'zh' | 'en' | 'ja' = 'zh'): Promise<string> {
  const cut = await cutTurnOf({ principal: 'alice', contextId: 'ctx' }, notes, deps, ctx, next);
  if (!cut) throw new Error('no note read');
  const events: StreamResponse[] = [];
  for await (const event of cutTurnRest(cut, wordsIn(language), ctx, deps, new TurnTracker(cut.shown))) events.push(event);
  const first = events[0];
  return first && 'statusUpdate' in first ? (first.statusUpdate.status.message?.parts[0]?.text ?? '') : '';
}

describe('what "the same message" is (messageDigest)', () => {
  it('the same words: trimmed, their runs of white space as one, however the text parts cut them', () => {
    const digest = messageDigest(text(PROMPT));
    expect(messageDigest(text(`  ${PROMPT}\n`))).toBe(digest);
    expect(messageDigest(message({ text: '请帮我创建一个专有网络，' }, { text: '地域杭州' }))).toBe(digest);
    expect(messageDigest(text('Create a  VPC,\n in Hangzhou'))).toBe(messageDigest(text('Create a VPC, in Hangzhou')));
  });

  it('other words, or another file or data beside them, are another message; a message of nothing is none', () => {
    const digest = messageDigest(text(PROMPT));
    expect(messageDigest(text('继续'))).not.toBe(digest);
    expect(messageDigest(text(PROMPT.replace('杭州', '上海')))).not.toBe(digest);
    const image = (url: string): Part => ({ url, mediaType: 'image/png' });
    expect(messageDigest(message({ text: PROMPT }, image('https://a.example/1.png')))).not.toBe(digest);
    expect(messageDigest(message({ text: PROMPT }, image('https://a.example/1.png')))).not.toBe(
      messageDigest(message({ text: PROMPT }, image('https://a.example/2.png'))),
    );
    expect(messageDigest(message({ data: { decision: 'allow_once' } }))).not.toBe(messageDigest(message({ data: { decision: 'deny' } })));
    expect(messageDigest(text('  '))).toBeUndefined();
    expect(messageDigest(message())).toBeUndefined();
  });
});

describe.each(['memory', 'redis'] as const)('the lead of a noted turn’s rest, its note in %s', (store) => {
  const prefix = `a2a-bridge-test:repeated-message:${randomUUID()}:`;
  let redis: Redis | undefined;
  const notesOf = (): CutTurnNotes =>
    redis ? createRedisCutTurnNotes(redis, { prefix, ttlMs: 60_000 }) : createLocalCutTurnNotes({ max: 10, idleTtlMs: 0 });
  /** The store both releases read: one Redis, or (memory) one process's notes, which a release before never shares. */
  let shared: CutTurnNotes;
  beforeAll(async () => {
    if (store === 'redis') {
      await requireRedis();
      redis = new Redis(REDIS_URL);
    }
    shared = notesOf();
  });
  afterAll(async () => {
    await redis?.quit();
    if (store === 'redis') await deleteRedisKeys(prefix);
  });

  it('the same message again: the rest is its answer, not to be sent again (zh, en, ja); another: as before', async () => {
    await shared.note('alice', 'ctx', note(text(PROMPT)));
    for (const language of ['zh', 'en', 'ja'] as const) {
      const words = wordsIn(language);
      expect(await leadRead(shared, text(` ${PROMPT} `), language)).toBe(`${words.cutTurnRestOfSameMessage}\n\n`);
      expect(await leadRead(shared, text('继续'), language)).toBe(`${words.cutTurnRest}\n\n`);
    }
    expect(await leadRead(shared, text(PROMPT))).toContain('与连接中断的上一条消息相同');
    expect(await leadRead(shared, text(PROMPT))).not.toContain('请在这条回复结束后重新发送');
  });

  it('the note keeps a digest, not the text; a turn that showed the rest and was left too is noted again with it', async () => {
    const long = `${PROMPT}${'，并配置安全组规则'.repeat(2_000)}`;
    await shared.note('alice', 'ctx', note(text(long)));
    const read = await shared.cut('alice', 'ctx');
    expect(JSON.stringify(read)).not.toContain('安全组');
    expect(JSON.stringify(read).length).toBeLessThan(400);
    // Noted again from what was read (its message slim by then), as watchedTurn does.
    await shared.note('alice', 'ctx', { taskId: 'task-1', shown: read!.shown });
    expect(await leadRead(shared, text(long))).toBe(`${wordsIn('zh').cutTurnRestOfSameMessage}\n\n`);
  });

  it.runIf(store === 'redis')(
    'a note the release before wrote (no digest) reads as before; one the current writes holds what that release reads',
    async () => {
      await shared.note('alice', 'ctx', note(text(PROMPT)));
      const [key] = await redis!.keys(`${prefix}*`);
      const written = JSON.parse((await redis!.get(key!))!) as { taskId: unknown; shown: { passed: unknown; sentDigest?: string } };
      // The release before reads a note whose taskId is a string and whose shown.passed an array, and spreads the rest.
      expect(typeof written.taskId).toBe('string');
      expect(written.shown.passed).toEqual(['第一段：开始规划。']);
      expect(written.shown.sentDigest).toMatch(/^[0-9a-f]{32}$/);
      delete written.shown.sentDigest;
      await redis!.set(key!, JSON.stringify(written), 'PX', 60_000);
      expect(await leadRead(shared, text(PROMPT))).toBe(`${wordsIn('zh').notPassedOn(wordsIn('zh').cutTurnRest)}\n\n`);
    },
  );
});

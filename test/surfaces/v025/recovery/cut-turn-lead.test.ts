/**
 * The words that open a cut turn's rest say what follows, as the note tells what its user read: "the rest" of the
 * reply when they read part of it (a message/stream hung up), the reply to their previous message, whole, when they
 * read none of it (a message/send hung up: its one answer never came). In each of the facade's languages, for another
 * message and for the same message again, through a note kept as the store keeps it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { CallContext } from '../../../../src/core/agent-port.js';
import type { Message, StreamResponse, Task } from '../../../../src/model/index.js';
import { createLocalCutTurnNotes, type CutTurnNotes } from '../../../../src/surfaces/v025/notes/cut-turn-notes.js';
import { cutTurnOf, cutTurnRest, type CutTurn } from '../../../../src/surfaces/v025/recovery/cut-turns.js';
import { watchedTurn } from '../../../../src/surfaces/v025/recovery/watched-turn.js';
import type { V025FacadeDeps } from '../../../../src/surfaces/v025/deps.js';
import { wordsIn } from '../../../../src/surfaces/v025/reply-options.js';

const PROMPT = '请帮我创建一个专有网络，地域杭州';
/** A message of its own, sent while the cut turn's rest was unread: the user is told it was not passed on. */
const OTHER = '另外，帮我查一下这个月的账单';
const FIRST = '第一段：开始规划。';
const LAST = '完成：VPC 已就绪。';
const conversation = { principal: 'alice', contextId: 'ctx' };
const text = (value: string): Message => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: value }] });
const said = (words: string): StreamResponse => ({
  statusUpdate: {
    taskId: 'task-1',
    contextId: 'ctx',
    status: { state: 'TASK_STATE_WORKING', message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: words }] } },
  },
});

/** An iac-code pipeline update: its words only in an envelope, no status message (docs/iac-code.md, "Pipeline mode"). */
const envelope = (sequence: number, words: string): StreamResponse => ({
  statusUpdate: {
    taskId: 'task-1',
    contextId: 'ctx',
    status: { state: 'TASK_STATE_WORKING' },
    metadata: { iac_code: { pipeline: { eventType: 'text_delta', status: 'working', sequence, data: { text: words } } } },
  },
});
const opened: StreamResponse = { task: { id: 'task-1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } } };

/** The task as the agent has it once the turn is over: its first words, then its answer. */
const finished: Task = {
  id: 'task-1',
  contextId: 'ctx',
  status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'done', role: 'ROLE_AGENT', parts: [{ text: LAST }] } },
  history: [{ messageId: 'said', role: 'ROLE_AGENT', parts: [{ text: FIRST }] }],
};
const deps = { port: { getTask: async () => finished } } as unknown as V025FacadeDeps;
const ctx = {} as CallContext;

/**
 * How a turn was left: by a message/send's caller hanging up, or a message/stream's, once the agent said `FIRST`; or
 * by message/send's bound passing (`upstream.request-timeout-ms`), its reply telling its user the agent goes on.
 */
type Left = 'message/send' | 'message/stream' | 'timed-out';

/** The turn `PROMPT` left as `left`, after its first words passed the reply; `shows`: the cut turn it showed instead. */
async function leftTurn(notes: CutTurnNotes, left: Left, shows?: CutTurn, shown: readonly (string | StreamResponse)[] = [FIRST]): Promise<void> {
  const turn = watchedTurn(conversation, notes, undefined, { sent: text(PROMPT), ...(shows ? { shows } : {}) });
  turn.sent();
  for (const event of shown) turn.tracker.note(typeof event === 'string' ? said(event) : event);
  if (left === 'timed-out') turn.unwatched(undefined, 'timed-out');
  else turn.unwatched(left === 'message/send' ? 'nothing' : undefined);
  turn.end();
  await notes.settled();
}

/** What the user reads when `next` is sent after the noted turn, and the cut turn it reads. */
async function nextRead(
  notes: CutTurnNotes,
  next: Message,
  language: 'zh' | 'en' | 'ja' = 'zh',
  agent = deps,
): Promise<{ lead: string; text: string; cut: CutTurn }> {
  const cut = await cutTurnOf(conversation, notes, agent, ctx, next);
  if (!cut) throw new Error('no note read');
  const texts: string[] = [];
  const turn = watchedTurn(conversation, createLocalCutTurnNotes({ max: 1, idleTtlMs: 0 }), undefined, { sent: next, shows: cut });
  for await (const event of cutTurnRest(cut, wordsIn(language), ctx, agent, turn.tracker))
    if ('statusUpdate' in event) texts.push(event.statusUpdate.status.message?.parts.map((part) => part.text ?? '').join('') ?? '');
  return { lead: texts[0] ?? '', text: texts.slice(1).join(''), cut };
}

const notesKept = (): CutTurnNotes => createLocalCutTurnNotes({ max: 10, idleTtlMs: 0 });

const QUESTION = '要部署到华东1还是华北2？';
/** An agent's task that asks its question, before its user answers it and after (an a2a-js 1.x agent took the answer up and said nothing). */
const asking: Task = {
  id: 'task-1',
  contextId: 'ctx',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: QUESTION }] } },
};
const stillAsking = { port: { getTask: async () => asking } } as unknown as V025FacadeDeps;

/** The answer to the question, its stream opened with the task as it stood, past the bound with nothing after. */
async function answerLeftAtBound(notes: CutTurnNotes, answer: string): Promise<void> {
  const turn = watchedTurn(conversation, notes, undefined, { sent: { ...text(answer), taskId: 'task-1' }, previous: asking });
  turn.sent();
  turn.tracker.note({ task: asking });
  turn.unwatched(undefined, 'timed-out');
  turn.end();
  await notes.settled();
}

/** The sentence each language's words keep: the message that reads the rest was not passed on, or need not be sent again. */
const KEPT = {
  zh: { other: '你刚发送的消息没有转给智能体；如仍需要，请在这条回复结束后重新发送。', same: '它没有被重复执行，无需重新发送。' },
  en: {
    other: 'The message you just sent was not passed to the agent; if you still need it, send it again once this reply has finished.',
    same: 'It was not run a second time; there is no need to send it again.',
  },
  ja: {
    other: '今送信したメッセージはエージェントに渡していません。必要な場合は、この返信が終わってからもう一度送信してください。',
    same: '二重には実行していないため、もう一度送信する必要はありません。',
  },
};

describe.each(['zh', 'en', 'ja'] as const)('the words that open a cut turn’s rest (%s)', (language) => {
  const words = wordsIn(language);

  it('a message/send hung up: the reply to the previous message, whole, for another message and the same again', async () => {
    const notes = notesKept();
    await leftTurn(notes, 'message/send');
    const other = await nextRead(notes, text(OTHER), language);
    expect(other.lead).toBe(`${words.notPassedOn(words.cutTurnWhole)}\n\n`);
    expect(other.text).toBe(`${FIRST}${LAST}`);
    expect((await nextRead(notes, text(` ${PROMPT} `), language)).lead).toBe(`${words.cutTurnWholeOfSameMessage}\n\n`);
  });

  it('a message/stream hung up: the rest of the reply, after what was read', async () => {
    const notes = notesKept();
    await leftTurn(notes, 'message/stream');
    const other = await nextRead(notes, text(OTHER), language);
    expect(other.lead).toBe(`${words.notPassedOn(words.cutTurnRest)}\n\n`);
    expect(other.text).toBe(LAST);
    expect((await nextRead(notes, text(PROMPT), language)).lead).toBe(`${words.cutTurnRestOfSameMessage}\n\n`);
  });

  it('an answer whose task still asks what its user answered, past the bound: its question once, in words that say the agent still asks it', async () => {
    const notes = notesKept();
    await answerLeftAtBound(notes, '华东1');
    const other = await nextRead(notes, text(OTHER), language, stillAsking);
    expect(other.lead).toBe(`${words.notPassedOn(words.stillAsks)}\n\n`);
    expect(other.text).toBe(QUESTION);
    expect((await nextRead(notes, text('华东1'), language, stillAsking)).lead).toBe(`${words.stillAsksOfSameMessage}\n\n`);
  });

  it('a message/send past its bound: the rest, in words that say no connection broke, whole when none of it was read', async () => {
    const notes = notesKept();
    await leftTurn(notes, 'timed-out');
    const other = await nextRead(notes, text(OTHER), language);
    expect(other.lead).toBe(`${words.notPassedOn(words.timedOutTurnRest)}\n\n`);
    expect(other.text).toBe(LAST);
    expect((await nextRead(notes, text(PROMPT), language)).lead).toBe(`${words.timedOutTurnRestOfSameMessage}\n\n`);
    const none = notesKept();
    await leftTurn(none, 'timed-out', undefined, [opened]);
    expect((await nextRead(none, text(OTHER), language)).lead).toBe(`${words.notPassedOn(words.timedOutTurnWhole)}\n\n`);
    expect((await nextRead(none, text(PROMPT), language)).lead).toBe(`${words.timedOutTurnWholeOfSameMessage}\n\n`);
  });

  it('a message that only asks to go on (what the words of the cut suggest) is not told it was not passed on, in any language', async () => {
    for (const goOn of ['继续', '继续。', 'Continue', 'continue.', '続けて', ' 続けてください！ ']) {
      const notes = notesKept();
      await leftTurn(notes, 'message/stream');
      const next = await nextRead(notes, text(goOn), language);
      expect(next.lead, goOn).toBe(`${words.cutTurnRest}\n\n`);
      expect(next.lead, goOn).not.toContain(KEPT[language].other);
      expect(next.text, goOn).toBe(LAST);
      const asked = notesKept();
      await answerLeftAtBound(asked, '华东1');
      expect((await nextRead(asked, text(goOn), language, stillAsking)).lead, goOn).toBe(`${words.stillAsks}\n\n`);
    }
    const unread = notesKept();
    await leftTurn(unread, 'timed-out', undefined, [opened]);
    expect((await nextRead(unread, text('继续'), language)).lead).toBe(`${words.timedOutTurnWhole}\n\n`);
  });

  it('the time-out’s words are none of a broken connection’s, and keep what they say of the message that reads it', () => {
    const timedOut = [words.timedOutTurnRest, words.timedOutTurnRestOfSameMessage, words.timedOutTurnWhole, words.timedOutTurnWholeOfSameMessage];
    const cut = [words.cutTurnRest, words.cutTurnRestOfSameMessage, words.cutTurnWhole, words.cutTurnWholeOfSameMessage];
    expect(new Set([...timedOut, ...cut]).size).toBe(8);
    for (const lead of timedOut) expect(lead).not.toMatch(/interrupted|中断|中断され/);
    expect(words.notPassedOn(words.timedOutTurnRest).endsWith(KEPT[language].other)).toBe(true);
    expect(words.notPassedOn(words.timedOutTurnWhole).endsWith(KEPT[language].other)).toBe(true);
    expect(words.timedOutTurnRestOfSameMessage.endsWith(KEPT[language].same)).toBe(true);
    expect(words.timedOutTurnWholeOfSameMessage.endsWith(KEPT[language].same)).toBe(true);
  });

  it('the whole reply’s words are not the rest’s, and keep what they say of the message that reads it', () => {
    expect(words.cutTurnWhole).not.toBe(words.cutTurnRest);
    expect(words.cutTurnWholeOfSameMessage).not.toBe(words.cutTurnRestOfSameMessage);
    expect(words.notPassedOn(words.cutTurnRest).endsWith(KEPT[language].other)).toBe(true);
    expect(words.notPassedOn(words.cutTurnWhole).endsWith(KEPT[language].other)).toBe(true);
    expect(words.cutTurnRestOfSameMessage.endsWith(KEPT[language].same)).toBe(true);
    expect(words.cutTurnWholeOfSameMessage.endsWith(KEPT[language].same)).toBe(true);
  });
});

describe('a turn that showed a cut turn, itself left before its end', () => {
  /** The cut turn as the next message reads it, once it was left as `left`. */
  async function cutLeft(notes: CutTurnNotes, left: Left): Promise<CutTurn> {
    await leftTurn(notes, left);
    const cut = await cutTurnOf(conversation, notes, deps, ctx, text('继续'));
    if (!cut) throw new Error('no note read');
    return cut;
  }

  it('the whole reply, hung up as a message/stream once part of it was read: the next shows the rest', async () => {
    const notes = notesKept();
    await leftTurn(notes, 'message/stream', await cutLeft(notes, 'message/send'));
    expect((await nextRead(notes, text('继续'))).lead).toBe(`${wordsIn('zh').cutTurnRest}\n\n`);
  });

  it('the whole reply, hung up again before any of it was read (a stream, or a message/send): the next shows it whole still', async () => {
    for (const left of ['message/stream', 'message/send'] as const) {
      const notes = notesKept();
      await leftTurn(notes, left, await cutLeft(notes, 'message/send'), []);
      const next = await nextRead(notes, text('继续'));
      expect(next.lead, left).toBe(`${wordsIn('zh').cutTurnWhole}\n\n`);
      expect(next.text, left).toBe(`${FIRST}${LAST}`);
    }
  });

  it('the rest of a turn its user read part of, hung up as a message/send: the next shows the rest, as before', async () => {
    const notes = notesKept();
    await leftTurn(notes, 'message/send', await cutLeft(notes, 'message/stream'), []);
    const next = await nextRead(notes, text('继续'));
    expect(next.lead).toBe(`${wordsIn('zh').cutTurnRest}\n\n`);
    expect(next.text).toBe(LAST);
  });
});

describe('why a turn was cut, as its note keeps it', () => {
  it('a time-out noted to a file is read back as one by a restarted process; then hung up again, it reads as a broken connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cut-turn-reason-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    await leftTurn(createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }), 'timed-out');
    const restarted = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
    expect((await nextRead(restarted, text('继续'))).lead).toBe(`${wordsIn('zh').timedOutTurnRest}\n\n`);
    await leftTurn(restarted, 'message/stream', await cutTurnOf(conversation, restarted, deps, ctx, text('继续')), []);
    expect((await nextRead(restarted, text('继续'))).lead).toBe(`${wordsIn('zh').cutTurnRest}\n\n`);
  });

  it('a note without a reason (written before it was kept), or with one this release does not know, reads as a broken connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cut-turn-reason-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    await leftTurn(createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir }), 'timed-out');
    const file = join(dir, 'facade_cut_turns.json');
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    for (const reason of [undefined, 'power-cut']) {
      writeFileSync(file, JSON.stringify(kept.map((entry: any) => ({ ...entry, note: { ...entry.note, reason } }))));
      const notes = createLocalCutTurnNotes({ max: 10, idleTtlMs: 0, dir });
      expect((await nextRead(notes, text('继续'))).lead, String(reason)).toBe(`${wordsIn('zh').cutTurnRest}\n\n`);
    }
  });
});

describe('what counts as read: whatever the note says was shown, on any replica', () => {
  it('a message/stream hung up before the agent said a word (its task opened): the reply whole', async () => {
    const notes = notesKept();
    await leftTurn(notes, 'message/stream', undefined, [opened]);
    const next = await nextRead(notes, text('继续'));
    expect(next.lead).toBe(`${wordsIn('zh').cutTurnWhole}\n\n`);
    expect(next.text).toBe(`${FIRST}${LAST}`);
  });

  it('iac-code pipeline words (envelopes, no status message) read before a hang-up: the rest, either way round', async () => {
    const streamThenSend = notesKept();
    await leftTurn(streamThenSend, 'message/stream', undefined, [envelope(5, '第一段')]);
    await leftTurn(streamThenSend, 'message/send', await cutTurnOf(conversation, streamThenSend, deps, ctx, text('继续')), []);
    expect((await nextRead(streamThenSend, text('继续'))).lead).toBe(`${wordsIn('zh').cutTurnRest}\n\n`);
    const sendThenStream = notesKept();
    await leftTurn(sendThenStream, 'message/send');
    await leftTurn(sendThenStream, 'message/stream', await cutTurnOf(conversation, sendThenStream, deps, ctx, text('继续')), [envelope(5, '第一段')]);
    expect((await nextRead(sendThenStream, text('继续'))).lead).toBe(`${wordsIn('zh').cutTurnRest}\n\n`);
  });
});

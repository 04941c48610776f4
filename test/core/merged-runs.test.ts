/**
 * A record past `tasks.history-limit` merges each run of one agent message's chunks into one message before it cuts
 * its front (merged-runs.ts, fold.ts), so a reply streamed in more chunks than the limit keeps its words; the merged
 * message begins as the run's first chunk does, and stands for the one message of that id an a2a-js 1.x agent's
 * store keeps (chunk-runs.ts).
 */
import { describe, expect, it } from 'vitest';
import { withChunksKept } from '../../src/core/task-registry/chunk-runs.js';
import { boundHistory, foldEvent, foldEvents } from '../../src/core/task-registry/fold.js';
import { beginsWith, withRunsMerged } from '../../src/core/task-registry/merged-runs.js';
import type { Message, Part, StreamResponse, Task } from '../../src/model/index.js';

const said = (role: Message['role'], id: string, parts: Part[]): Message => ({ messageId: id, role, parts, taskId: 't' });
const user = (text: string, id = `u-${text}`): Message => said('ROLE_USER', id, [{ text }]);
const chunk = (text: string, id = 'reply'): Message => said('ROLE_AGENT', id, [{ text, mediaType: 'text/plain' }]);
const task = (history: Message[]): Task => ({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, history });
const textOf = (message: Message): string => message.parts.map((part) => part.text ?? '').join('');
const texts = (history: readonly Message[] | undefined): string[] => (history ?? []).map(textOf);
/** What a reader reads of the agent's words: its messages' texts, in order. */
const agentWords = (history: readonly Message[] | undefined): string =>
  (history ?? [])
    .filter((message) => message.role === 'ROLE_AGENT')
    .map(textOf)
    .join('');

const WORDS = Array.from({ length: 300 }, (_, i) => `w${i} `);

/** A turn as an a2a-js 1.x agent streams it: its Task, a working status per chunk of one message id, then completed. */
function streamedTurn(words: readonly string[], id = 'reply'): StreamResponse[] {
  const events: StreamResponse[] = [{ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' }, history: [user('explain')] } }];
  for (const word of words)
    events.push({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: chunk(word, id) } } });
  events.push({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });
  return events;
}

describe('withRunsMerged', () => {
  it("merges each run of one agent message's chunks: texts joined where chunks meet, every other part kept in order", () => {
    const file: Part = { url: 'https://example.com/main.tf', filename: 'main.tf' };
    const history = [
      user('deploy'),
      chunk('已选择'),
      chunk(' cn-hangzhou。'),
      said('ROLE_AGENT', 'reply', [file]),
      said('ROLE_AGENT', 'reply', [{ text: '部署' }, { text: '完成', metadata: { step: 2 } }]),
      chunk('。'),
      chunk('lone', 'other'),
      user('thanks'),
    ];
    const merged = withRunsMerged(history)!;
    expect(merged.map((message) => message.messageId)).toEqual(['u-deploy', 'reply', 'other', 'u-thanks']);
    expect(merged[1]!.parts).toEqual([
      { text: '已选择 cn-hangzhou。', mediaType: 'text/plain' },
      file,
      // A chunk's own parts stay apart; a part with metadata is not joined.
      { text: '部署' },
      { text: '完成', metadata: { step: 2 } },
      { text: '。', mediaType: 'text/plain' },
    ]);
    expect(merged[2]).toBe(history[6]);
    expect(withRunsMerged([user('a'), chunk('b'), user('c', 'reply')])).toBeUndefined();
  });

  it('a merged run begins as its first chunk does, and as no other message', () => {
    const [, whole] = withRunsMerged([user('deploy'), chunk('已选择'), chunk(' cn-hangzhou。')])!;
    expect(beginsWith(whole!, chunk('已选择'))).toBe(true);
    expect(beginsWith(whole!, chunk('已选择 cn-hangzhou。'))).toBe(true);
    expect(beginsWith(whole!, chunk('选择'))).toBe(false);
    expect(beginsWith(whole!, chunk('已选择', 'another'))).toBe(false);
    expect(beginsWith(whole!, said('ROLE_AGENT', 'reply', [{ text: '已选择' }]))).toBe(false);
  });
});

describe("a history past tasks.history-limit keeps a long reply's words", () => {
  it('a turn of 300 chunks under one id, with a limit of 20: every word after the prompt, folded in a batch or one by one', () => {
    const events = streamedTurn(WORDS);
    const batch = foldEvents(undefined, events, 20)!;
    const oneByOne = events.reduce<Task | undefined>((current, event) => foldEvent(current, event, 20), undefined)!;
    expect(batch).toEqual(oneByOne);
    // The run merged when the record outgrew the limit, the chunks since as they came: till it outgrows it again.
    expect(texts(batch.history)[0]).toBe('explain');
    expect(texts(batch.history)[1]!.startsWith('w0 w1 w2 ')).toBe(true);
    expect(agentWords(batch.history)).toBe(WORDS.join(''));
    expect(batch.history!.length).toBeLessThanOrEqual(20);
    // Batches of any size (the writer's) keep the same words.
    let stored: Task | undefined;
    for (let at = 0; at < events.length; at += 7) stored = foldEvents(stored, events.slice(at, at + 7), 20) ?? stored;
    expect(stored!.history!.length).toBeLessThanOrEqual(20);
    expect(texts(stored!.history)[0]).toBe('explain');
    expect(agentWords(stored!.history)).toBe(WORDS.join(''));
  });

  it('a record an earlier, higher limit left longer has its runs merged at its next write, in a batch too', () => {
    const stored = task([user('explain'), ...WORDS.slice(0, 30).map((word) => chunk(word))]);
    const next: StreamResponse = { message: chunk('more', 'next') };
    for (const folded of [foldEvents(stored, [next], 20)!, foldEvent(stored, next, 20)!]) {
      expect(texts(folded.history)).toEqual(['explain', WORDS.slice(0, 30).join(''), 'more']);
    }
  });

  it('within the limit each chunk stays a message of its own, as the stream carried it', () => {
    const folded = foldEvents(undefined, streamedTurn(WORDS.slice(0, 5)), 20)!;
    expect(texts(folded.history)).toEqual(['explain', ...WORDS.slice(0, 5)]);
  });

  it('messages of other ids are cut as before, and a caller’s large raw part is still kept as a line', () => {
    const photo: Part = { raw: Buffer.alloc(4096, 7).toString('base64'), mediaType: 'image/jpeg', filename: 'photo.jpg' };
    const history = [
      said('ROLE_USER', 'u-0', [{ text: 'look' }, photo]),
      ...WORDS.slice(0, 30).map((word) => chunk(word)),
      ...['a', 'b', 'c'].map((id) => chunk(id, id)),
    ];
    const bounded = boundHistory(task(history), 4, 1024);
    expect(texts(bounded.history)).toEqual(
      ['look[photo.jpg (image/jpeg, 4.0 KiB) was sent; the gateway keeps no copy]', WORDS.slice(0, 30).join(''), 'a', 'b', 'c'].slice(-4),
    );
    expect(boundHistory(task([...history, user('more')]), 4, 1024).history!.map((message) => message.messageId)).toEqual(['a', 'b', 'c', 'u-more']);
  });
});

describe('withChunksKept over a merged run', () => {
  const merged = withRunsMerged([user('explain'), ...WORDS.slice(0, 250).map((word) => chunk(word))])![1]!;

  it("stands for the agent's first chunk, with the chunks recorded after it", () => {
    const answer = task([user('explain'), chunk(WORDS[0]!)]);
    const recorded = [user('explain'), merged, ...WORDS.slice(250).map((word) => chunk(word))];
    expect(agentWords(withChunksKept(answer, recorded).history)).toBe(WORDS.join(''));
    expect(agentWords(withChunksKept(answer, [user('explain'), merged]).history)).toBe(WORDS.slice(0, 250).join(''));
  });

  it("at the record's front, or beside another message of its id, or not beginning as the agent's message, stands for nothing", () => {
    const answer = task([user('explain'), chunk(WORDS[0]!)]);
    expect(withChunksKept(answer, [merged, user('more')])).toBe(answer);
    expect(withChunksKept(answer, [user('explain'), merged, user('more'), chunk('again')])).toBe(answer);
    const other = task([user('explain'), chunk('w1 ')]);
    expect(withChunksKept(other, [user('explain'), merged])).toBe(other);
    // The agent's own message as recorded: nothing to put back.
    const whole = task([user('explain'), merged]);
    expect(withChunksKept(whole, [user('explain'), merged])).toBe(whole);
  });
});

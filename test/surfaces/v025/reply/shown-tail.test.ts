/**
 * The reply's end kept beside it (shown-tail.ts): the rules read the reply's last word, last sentence and last
 * pieces from a bounded tail, so a token per message costs the same at the reply's 20,000th token as at its
 * first. What a Bailian user reads of a long reply must not change: words and URLs cut across messages, and
 * an answer sent again after thousands of tokens, read as they did when the rules read the whole reply.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { initialReplyState, reduceReply, type ReplyState } from '../../../../src/surfaces/v025/reply/index.js';
import { TAIL_LENGTH } from '../../../../src/surfaces/v025/reply/shown-tail.js';
import { artifact, bailian, options, readText, run, status, submitted } from './support.js';

/** `texts` as working messages, each a message of its own (a2a-python's `new_agent_text_message` per token). */
const tokens = (texts: readonly string[], prefix = 'w'): StreamResponse[] =>
  texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `${prefix}${at}`));
/** A reply far longer than the tail, a token a message: `chunk 0 chunk 1 …`. */
const LONG = Array.from({ length: 600 }, (_, at) => `chunk ${at} `);
const before = LONG.join('');

describe('the tail the reducer keeps of the reply', () => {
  it('is the reply’s last characters, never longer than its bound, over thousands of token messages', () => {
    const opts = options(bailian);
    let state: ReplyState = reduceReply(initialReplyState(), submitted, opts).state;
    for (const event of tokens(Array.from({ length: 3000 }, (_, at) => `tok${at} `))) {
      state = reduceReply(state, event, opts).state;
      expect(state.shownTail).toBe(state.shown.slice(-TAIL_LENGTH));
    }
    expect(state.shown.length).toBeGreaterThan(10 * TAIL_LENGTH);
    expect(state.shownTail.length).toBe(TAIL_LENGTH);
  });

  it('stays the reply’s end for chunks short and long, messages and artifacts', () => {
    const text = fc.oneof(fc.stringMatching(/^[ \na-z.?:/]{0,8}$/), fc.string({ minLength: TAIL_LENGTH - 8, maxLength: TAIL_LENGTH + 300 }));
    const event = fc.oneof(
      fc.tuple(text, fc.constantFrom('m1', 'm2', 'm3')).map(([said, id]) => status('TASK_STATE_WORKING', said, {}, id)),
      text.map((said) => artifact('a1', [{ text: said }], { append: true })),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (events) => {
        const opts = options(bailian);
        let state = initialReplyState();
        for (const next of [submitted, ...events]) {
          state = reduceReply(state, next, opts).state;
          expect(state.shownTail).toBe(state.shown.slice(-TAIL_LENGTH));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('after a reply longer than the tail, what the user reads is unchanged', () => {
  const read = (events: StreamResponse[]): string => readText(run([submitted, ...events]));

  it('a URL streamed a token a message, and cut at its `?`, reads as one URL', () => {
    const url = ['https:', '//ecs.aliyuncs.com/', ...Array.from({ length: 36 }, (_, at) => `segment-${at}/`), '?', 'Action=DescribeInstances'];
    expect(url.join('').length).toBeGreaterThan(400);
    const text = read([...tokens([...LONG, 'Call ']), ...tokens(url, 'u'), status('TASK_STATE_COMPLETED')]);
    expect(text).toBe(`${before}Call ${url.join('')}`);
  });

  it('a ROS type and a path cut at `::` and `:` go on; a progress message after a sentence starts its line', () => {
    const cut = ['Type: ALIYUN::', 'ECS::', 'Instance', ' saved to C:', '\\Users\\me.', 'Creating VPC'];
    const text = read([...tokens([...LONG.slice(0, -1), 'chunk 599.']), ...tokens(cut, 'r'), status('TASK_STATE_COMPLETED')]);
    expect(text).toBe(`${LONG.slice(0, -1).join('')}chunk 599.\nType: ALIYUN::ECS::Instance saved to C:\\Users\\me.\nCreating VPC`);
  });

  it('a closing message that sends the last sentences again with a question shows only the question', () => {
    const answer = ['The stack', ' vpc-demo', ' is ready.'];
    const closing = status('TASK_STATE_INPUT_REQUIRED', 'The stack vpc-demo is ready. Which region next?', {}, 'final');
    expect(read([...tokens(LONG), ...tokens(['\n']), ...tokens(answer, 'a'), closing])).toBe(
      `${before}\nThe stack vpc-demo is ready.\nWhich region next?`,
    );
  });

  it('an answer longer than the tail, sent again whole with a question after it, shows only the question', () => {
    const answer = Array.from({ length: 120 }, (_, at) => `Line ${at} of the answer.`).join('\n');
    expect(answer.length).toBeGreaterThan(2 * TAIL_LENGTH);
    const events = [...tokens(LONG), status('TASK_STATE_WORKING', answer, {}, 'answer')];
    const closing = status('TASK_STATE_INPUT_REQUIRED', `${answer}\nShall I deploy it?`, {}, 'final');
    expect(read([...events, closing])).toBe(`${before}${answer}\nShall I deploy it?`);
  });

  it('an artifact’s last sentence asked again to end the turn is not shown twice', () => {
    const chunks = [...LONG, 'I can deploy it. ', 'Which region should I use?'].map((text, at) =>
      artifact('a1', [{ text }], { append: at > 0, lastChunk: false }),
    );
    const closing = status('TASK_STATE_INPUT_REQUIRED', 'Which region should I use?', {}, 'final');
    expect(read([...chunks, closing])).toBe(`${before}I can deploy it. Which region should I use?`);
  });

  it('iac-code’s assistantFinal that repeats the streamed text, blanks after it, is not shown again', () => {
    const final = status('TASK_STATE_COMPLETED', 'the end.', { metadata: { iac_code: { assistantFinal: { complete: true } } } }, 'c');
    const chunks = [...LONG, 'the end.', '\n\n'].map((text) => status('TASK_STATE_WORKING', text, {}, 'c'));
    expect(read([...chunks, final])).toBe(`${before}the end.\n\n`);
  });
});

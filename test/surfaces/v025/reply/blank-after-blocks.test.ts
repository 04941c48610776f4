/**
 * A message or an artifact after one that ends in a Markdown table or list, as a Bailian user reads it (Bailian
 * renders the reply's Markdown): one line break after a table row makes the next sentence another row, and after
 * a list item the rest of that item (a lazy continuation line). So what does not go on with the table or the list
 * stands after a blank line; another row, another item, an indented line still follow on the next line. The same in
 * message/stream and message/send (shownAlike), whatever ends the block: the agent's own line break or none.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { needsBlankLine } from '../../../../src/surfaces/v025/reply/line-shapes.js';
import { artifact, shownAlike, status, submitted } from './support.js';

const TABLE = '| 名称 | 状态 |\n|---|---|\n| vpc-1 | 可用 |';
const LIST = '- 第一步\n- 第二步';
const working = (texts: readonly string[]): StreamResponse[] => texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `w${at}`));
const read = (events: StreamResponse[], closing?: string): string =>
  shownAlike([submitted, ...events, status('TASK_STATE_COMPLETED', closing, {}, 'end')]);

/** The blocks a line-based reader finds: a table's rows, a list's items, and paragraphs, each kind a run of lines. */
function blocks(text: string): string[] {
  const kinds: string[] = [];
  let last = '';
  for (const line of text.split('\n')) {
    // A line right after a row or an item is that block's (a row, a lazy continuation line) unless it is blank.
    const kind =
      line.trim() === ''
        ? ''
        : /^\s*\|/u.test(line) || last === 'table'
          ? 'table'
          : /^\s*(?:[-*+]|\d+[.)])\s/u.test(line) || last === 'list'
            ? 'list'
            : 'paragraph';
    if (kind !== '' && kind !== last) kinds.push(kind);
    last = kind;
  }
  return kinds;
}

describe('after a table or a list, the next message stands after a blank line', () => {
  it('artifacts: a table, a list, then the closing sentence', () => {
    const text = read([artifact('a1', [{ text: TABLE }], { lastChunk: true }), artifact('a2', [{ text: LIST }], { lastChunk: true })], '全部完成。');
    expect(text).toBe(`${TABLE}\n\n${LIST}\n\n全部完成。`);
    expect(blocks(text)).toEqual(['table', 'list', 'paragraph']);
  });

  it('whole messages, each its own id, the agent ending its block with a line break of its own or not', () => {
    expect(read(working(['Here are the results', TABLE, 'All resources created.']))).toBe(`Here are the results\n${TABLE}\n\nAll resources created.`);
    expect(read(working([`${TABLE}\n`]), 'All resources created.')).toBe(`${TABLE}\n\nAll resources created.`);
    expect(read(working([`${LIST}`]), 'Done.')).toBe(`${LIST}\n\nDone.`);
    expect(read([artifact('a1', [{ text: `${LIST}\n` }], { lastChunk: true })], '完成。')).toBe(`${LIST}\n\n完成。`);
    // A padded row's last `|` ends the row: a message of its own after it.
    expect(read(working(['| 1 | 2 |', 'Table complete, next step']))).toBe('| 1 | 2 |\n\nTable complete, next step');
    // A list after it too: run on, the item would be the row's last cell.
    expect(read(working(['| 1 | 2 |', '- next']))).toBe('| 1 | 2 |\n\n- next');
  });

  it('what goes on with the table or the list follows on the next line', () => {
    expect(read(working(['| a | b |\n|---|---|\n| 1 | 2 |', '| 3 | 4 |']))).toBe('| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |');
    expect(read(working(['- 第一步', '- 第二步', '1. 再一步']))).toBe('- 第一步\n- 第二步\n1. 再一步');
    expect(read([artifact('a1', [{ text: '- 第一步' }], { lastChunk: true })], '  补充说明')).toBe('- 第一步\n  补充说明');
    // Already apart: the agent's own blank line.
    expect(read([artifact('a1', [{ text: `${TABLE}\n\n` }], { lastChunk: true })], '完成。')).toBe(`${TABLE}\n\n完成。`);
  });

  it('the text parts of one message: a table part, a list part, then a sentence part', () => {
    const list = '- First step\n- Second step';
    const message = { messageId: 'w', role: 'ROLE_AGENT', parts: [{ text: TABLE }, { text: list }, { text: 'All steps done.' }] };
    const text = read([{ statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message } } } as StreamResponse]);
    expect(text).toBe(`${TABLE}\n\n${list}\n\nAll steps done.`);
    expect(blocks(text)).toEqual(['table', 'list', 'paragraph']);
  });

  it("the agent's running text after a line break of its own reads as it wrote it", () => {
    // A model's tokens: nothing at the boundary tells them from a whole message that ended its line itself.
    expect(read(working(['- 第一', '步\n', '然后']))).toBe('- 第一步\n然后');
    expect(read(working(['| 专有网络 | 正常 |\n', '1', '. 创建']))).toBe('| 专有网络 | 正常 |\n1. 创建');
  });
});

describe('needsBlankLine', () => {
  it('reads the last line before one line break, and the next line as it opens', () => {
    expect(needsBlankLine('| a |', '\nDone', true)).toBe(true);
    expect(needsBlankLine('| a |\n', 'Done', true)).toBe(true);
    expect(needsBlankLine('| a |\n', '\nDone', true)).toBe(false);
    expect(needsBlankLine('| a |', 'Done', true)).toBe(false);
    expect(needsBlankLine('| a |', '\n|', true)).toBe(false);
    expect(needsBlankLine('1. a', '\n2. b', true)).toBe(false);
    expect(needsBlankLine('1. a', '\n## Next', true)).toBe(true);
    expect(needsBlankLine('text', '\nDone', true)).toBe(false);
    expect(needsBlankLine('| a |', '\n  ', true)).toBe(false);
    // A line whose start the tail does not hold: its shape is not known.
    expect(needsBlankLine('a |', '\nDone', false)).toBe(false);
  });
});

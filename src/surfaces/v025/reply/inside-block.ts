import { fenceOpen, NO_CODE, scanCode, type CodeScan } from './code-spans.js';
import { LIST_ITEM } from './line-shapes.js';

/**
 * Where an agent's running text says again what it said last, whether that is its text restated from where it
 * began or lines it repeats. A restatement (messages that each hold the whole text so far, the answer sent
 * again) says the text again from its start, so it opens every block it holds; an agent that flushes its
 * output by line or by time window (a chunk that opens with the previous chunk's line) may well write a code
 * line, a table row or a list item twice (`retry(connect)` three times in a listing, the same row for two
 * months), and what it says again then starts inside a block that began before it.
 */

/** A table row alone on its line (`| Jan | 100 |`, `|---|---|`). */
const TABLE_ROW = /^\|.*\|$/u;

/** Whether two lines are lines of one block: table rows, or list items. */
const sameBlock = (line: string, before: string): boolean =>
  (TABLE_ROW.test(line) && TABLE_ROW.test(before)) || (LIST_ITEM.test(line) && LIST_ITEM.test(before));

/**
 * Whether the reply's text from `at` on starts inside a block that began before `at`: the fenced block the reply
 * stands in (`code`), which that text alone does not open (its lines are the block's), or a table or a list,
 * whose row or item on the line before `at` it goes on with, a row or an item at `at`'s line start.
 */
export function startsInsideBlock(shown: string, code: CodeScan, at: number): boolean {
  if (fenceOpen(code) !== '' && fenceOpen(scanCode(NO_CODE, shown.slice(at))) === '') return true;
  if (at === 0 || shown.charAt(at - 1) !== '\n') return false;
  const lineEnd = shown.indexOf('\n', at);
  const line = shown.slice(at, lineEnd < 0 ? shown.length : lineEnd);
  const before = shown.slice(shown.lastIndexOf('\n', at - 2) + 1, at - 1);
  return sameBlock(line.trim(), before.trim());
}

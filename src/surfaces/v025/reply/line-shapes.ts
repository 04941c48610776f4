/**
 * Lines that a piece of an agent's running text opens, or that the piece before it closed, told by their
 * Markdown shape (running-text.ts asks where two pieces meet): a list item, a status mark, a fence, a heading,
 * a table row, a rule, a quote. A model's token stream puts each of them after a line break of its own, and
 * after a closing fence or a table row's end it writes a line break too; a whole message that opens one
 * right after text that did not end its line is a message of its own, and run on from that text it no longer
 * renders (`Run this```bash`, `stack## Resources`, "```Then check": a fence that no longer closes, so all
 * that follows reads as code). Tokens do cut inside lines where some of these marks stand (`C` + `#`, `-` +
 * `> b`, `| Name` + `| Status |`, `4` + `2. Next`), so each shape says what it starts a line after.
 */

/** A Markdown list item's marker and its blank: `1. `, `2) `, `- `, `* `, `• ` (a number split in two, `4` + `2. `, is none). */
const LIST_ITEM = /^(?:\d{1,3}[.)]|[-*+\u2022])[ \t]+\S/u;
/** A rule alone on its line (`---`, `***`, `___`), or a quote's `> ` and words: they start a line where a list item does. */
const RULE = /^(?:-{3,}|\*{3,}|_{3,})[ \t]*(?:\n|$)/u;
const QUOTE = /^>[ \t]+\S/u;
/**
 * What a list item, a rule or a quote starts a line after: a letter (Chinese and Japanese too), a sentence's end
 * (`。` and `：` too), or what closes a word or a phrase: a bracket or a quote (`(vpc-123)`, `（vpc-1）`, `"demo"`),
 * a backtick, `%`.
 */
const BEFORE_LIST_ITEM = /[\p{L}\p{Pe}\p{Pf}.!?:;%`'"\u2026\u3002\uff01\uff1f\uff1a\uff1b]$/u;
/** A full stop after a digit is a number's (`192.168.0.`), not a sentence's end. */
const NUMBER_POINT = /\d\.$/u;
/**
 * Text that ends in an operand, which a `-`, `*`, `1.` or `>` after it goes on from (`x = a` + `- b`, `a` + `> b`):
 * a Latin word of one letter, or a word after an operator between blanks (`x = ab`, `i < n`; not a list item's `- `).
 */
const ENDS_OPERAND = /(?:^|[^\p{L}\p{N}_])[A-Za-z]$|\S[ \t]+(?:[=<>+*/%^&|-]{1,2}|!=)[ \t]+\S+$/u;

/** A status mark and words after it (`✅ ECS created`, `⚠️ Quota low`): a model's emoji token has no words with it. */
const MARKED_LINE = /^[\p{Extended_Pictographic}\u2713\u2714\u2717\u2718\u2192\u25b6\u25ba][\ufe0f\u200d\p{Extended_Pictographic}]*[ \t]+\S/u;
/** What a status mark starts a line after: a letter, a digit, or what closes a phrase (`(vpc-123)`, `50%`, `` `vpc-1` ``). */
const BEFORE_MARK = /(?:[\p{L}\p{N}\p{Pe}\p{Pf}%]|\S["'`])$/u;

/** A fence (```` ``` ````, `~~~`), a heading's `#`s and blank, or a table row (`|`, cells, `|`; `||` is an operator). */
const FENCE = /^(?:`{3,}|~{3,})/u;
const HEADING = /^#{1,6}[ \t]+\S/u;
const TABLE_ROW = /^\|(?!\|)[^\n]*\|/u;
/**
 * What a fence, a heading or a table row starts a line after: text that ends a line of prose or a table row: a
 * letter, a digit, a sentence's end, closing punctuation, `|`. Not an operator or a `#` (`#` + `## x` is `###`).
 */
const BEFORE_BLOCK = /[\p{L}\p{N}\p{Pe}\p{Pf}.!?:;%`'"|\u2026\u3002\uff01\uff1f\uff1a\uff1b]$/u;
/** A word of one capital at the end: `C` + `# code` is C#, no heading. */
const ENDS_LONE_CAPITAL = /(?:^|[^\p{L}\p{N}])\p{Lu}$/u;

/** A line that closes a block: a bare fence (the caller found it closes one: an opening one leaves the reply in code), a rule of `-`. */
const FENCE_LINE = /^ {0,3}(?:`{3,}|~{3,})[ \t]*$/u;
const DASH_RULE_LINE = /^ {0,3}-{3,}[ \t]*$/u;
/** A table row's line with its cells padded (`| 1 | 2 |`): a model's token cut after one of its `|` goes on with a blank. */
const PADDED_ROW = /^[ \t]*\|[ \t]/u;
const ROW = /^[ \t]*\|/u;

/** The last line of `text` (all of it when it has no line break). */
const currentLine = (text: string): string => text.slice(text.lastIndexOf('\n') + 1);

/** The most of the shown text's current line `tail` and the shown text's last word tell: each ends it (`|:---|` + `---:`). */
function shownLine(tail: string, word: string): string {
  const last = currentLine(tail);
  return word.length > last.length && !word.includes('\n') ? word : last;
}

/**
 * Whether `text` starts a line of its own by the shape of the line it opens or the one before it closes
 * (`true`), goes on from it although it looks like a list item (`false`: `is 4` + `2. Next`), or the shape
 * says nothing (`undefined`). `tail` is the text before (the message before, when what was shown ends as it
 * does), `word` the shown text's last word; `line` the shown text's current line when known, where a block's
 * end is read (`A ` + `---` + `B` is no rule), else as much of it as `tail` and `word` tell.
 */
export function startsLineByShape(tail: string, text: string, word: string, line?: string): boolean | undefined {
  const shown = line ?? shownLine(tail, word);
  // Inside a table row still being written, the cells go on (`|:` + `---|`, `| vpc` + `-1 |`).
  if (ROW.test(shown) && !tail.endsWith('|')) return false;
  // After a block the line closed, also a list item (`| 1 | 2 |` + `- next`).
  if (LIST_ITEM.test(text)) return startsListItem(tail) || closesBlock(tail, text, shown);
  if (MARKED_LINE.test(text) && BEFORE_MARK.test(tail)) return true;
  if ((QUOTE.test(text) || opensRule(text, shown + word)) && startsListItem(tail)) return true;
  return opensBlock(tail, text) || closesBlock(tail, text, shown) || undefined;
}

/**
 * Whether a list item (or a rule, a quote) after `tail` starts a line: after a letter, a sentence's end or
 * closing punctuation, not after a digit (`is 4` + `2. Next`), a number's point, `/` (`192.168.0.0/` + `16. Then`),
 * an operator or an operand (`x = a` + `- b`, `a` + `> b`).
 */
function startsListItem(tail: string): boolean {
  return BEFORE_LIST_ITEM.test(tail) && !NUMBER_POINT.test(tail) && !ENDS_OPERAND.test(tail);
}

/** A rule alone; of `*` or `_` only where the text before holds none (`***very` + `***` closes an emphasis). */
const opensRule = (text: string, before: string): boolean => RULE.test(text) && (text.startsWith('-') || !before.includes(text.charAt(0)));

/**
 * A fence, a heading or a table row after text that ends a line of prose or a table row. Not a heading's `#`
 * after a lone capital (`C` + `# is`). A fence cut in two (`` `` `` + `` `bash ``) is inside code, where the caller asks nothing.
 */
function opensBlock(tail: string, text: string): boolean {
  if (!BEFORE_BLOCK.test(tail)) return false;
  if (FENCE.test(text)) return true;
  if (HEADING.test(text)) return !ENDS_LONE_CAPITAL.test(tail);
  return TABLE_ROW.test(text);
}

/**
 * Whether the line before closes a block that `text` does not go on with: a closing fence (the next message's
 * words would run on after it, so it no longer closes; another block's fence opens a line too), a padded table
 * row's last `|` (`| 1 | 2 |` + `Table complete`: a row's cell after its `|` opens with a blank), a rule of `-`
 * (`---` + `Part two`; `***` and `___` open an emphasis too: `***` + `Important***`). The rest of a longer
 * fence or rule (`` ``` `` + `` ` ``, `---` + `-`) carries on.
 */
function closesBlock(tail: string, text: string, line: string): boolean {
  if (FENCE_LINE.test(line)) return FENCE.test(text) || !text.startsWith(line.trim().charAt(0));
  if (DASH_RULE_LINE.test(line)) return /^[\p{L}\p{N}]/u.test(text);
  return PADDED_ROW.test(line) && tail.endsWith('|');
}

/**
 * Whether `text` is a heading or a quote of one line (`## 资源列表`, `> 注意`): when the facade started a line for
 * it as a message of its own (a model's tokens put their own line break before one), that message was the whole
 * line, and the next message starts a line too (running-text.ts, separatorBefore). Run on, it would read as
 * part of the heading or the quote (`## 资源列表专有网络已创建`), and at that boundary alone it looks like a
 * model's chunk cut inside the heading (`## 资源` + `列表`).
 */
export const isBlockLine = (text: string): boolean => (HEADING.test(text) || QUOTE.test(text)) && !text.includes('\n');

/** A table row's line (`| vpc-1 | 可用 |`) or a list item's (`- 第一步`, `2. 创建交换机`, nested ones too). */
const TABLE_ROW_LINE = /^ {0,3}\|/u;
const LIST_ITEM_LINE = /^[ \t]*(?:\d{1,9}[.)]|[-*+])[ \t]+\S/u;
/**
 * What goes on with a table: another row. With a list: another item (its marker alone too, or a `•` an agent writes
 * its items with), or a line indented under it.
 */
const GOES_ON_TABLE = /^[ \t]*\|/u;
const GOES_ON_LIST = /^(?:[ \t]|(?:\d{1,9}[.)]|[-*+\u2022])(?:[ \t]|$))/u;

/**
 * Whether `text`, a block of its own the reply shows after `tail` (the reply's end; `whole`: all of it), needs one
 * more line break to stand apart: the last line before it is a table row or a list item, one line break comes
 * between them, and `text` does not go on with that table (a row) or that list (an item, an indented line). On the
 * next line a Markdown reader takes it for another row of the table, or for the rest of the list's last item (a
 * lazy continuation line): `| vpc-1 | 可用 |` then `全部完成。` reads as a row, `- 第二步` then `全部完成。` as the
 * item's words. Only what was shown and the start of `text` are read: no chunk is held back for it.
 */
export function needsBlankLine(tail: string, text: string, whole: boolean): boolean {
  const before = tail.trimEnd();
  const lead = text.slice(0, text.length - text.trimStart().length);
  const between = tail.slice(before.length) + lead;
  if (between.split('\n').length !== 2 || lead.length === text.length) return false;
  const lineAt = before.lastIndexOf('\n');
  // A line longer than the tail: its start, which tells its shape, is not known.
  if (lineAt < 0 && !whole) return false;
  const line = before.slice(lineAt + 1);
  // The next line as it opens, its indent too (an indented line goes on with a list item).
  const next = between.slice(between.indexOf('\n') + 1) + text.slice(lead.length, lead.length + 8);
  if (TABLE_ROW_LINE.test(line)) return !GOES_ON_TABLE.test(next);
  return LIST_ITEM_LINE.test(line) && !GOES_ON_LIST.test(next);
}

/**
 * Names the agent gives (a file's) as the reply writes them. Bailian renders the reply as Markdown, so a
 * name written bare is read as Markdown too: `__init__.py` shows as a bold "init".py, `*.tf` may open an
 * emphasis, `[draft].md` a link, `<main>.go` an HTML tag, `# notes.md` on a line of its own a heading. Such a
 * name is shown as inline code, which shows every character as it is, as a bucket's location is
 * (file-urls.ts); backslash escapes would render too, but read as clutter wherever the text is not rendered.
 * Any other name (`main.tf`, `报告.pdf`) stays bare: nothing in it changes as Markdown.
 */

/** Characters Markdown reads anywhere in a line: escapes, code, emphasis, links, HTML and entities, strikethrough, table cells. */
const MARKDOWN_INLINE = /[\\`*_[\]<>&~|]/u;

/** What opens a block at a line's start (a name stands at one): a heading, a quote, a list item, a setext underline, indented code. */
const MARKDOWN_BLOCK = /^(?:[#>+=-]|\d+[.)](?:\s|$)|\s)/u;

/** A CommonMark code span that holds `text` whole: a backtick run longer than any inside, padded when it starts or ends with one or a blank. */
export function codeSpan(text: string): string {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const ticks = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/**
 * `name` as the reply writes it, on one line (a control character, a line break among them, reads as a blank:
 * the name heads its own line) and read as itself: inline code when Markdown would read any of it, else bare.
 */
export function shownName(name: string): string {
  const oneLine = name.replace(/\p{Cc}/gu, ' ');
  return MARKDOWN_INLINE.test(oneLine) || MARKDOWN_BLOCK.test(oneLine) ? codeSpan(oneLine) : oneLine;
}

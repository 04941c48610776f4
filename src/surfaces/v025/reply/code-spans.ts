/**
 * Whether the reply, as shown so far, stands inside Markdown code: a fenced block (a line of three or more
 * backticks or tildes opens it, a line of as many or more of the same closes it) or an inline code span (an
 * odd count of backtick runs on the current line; a run followed by white space opens none, so a lone
 * backtick in prose, "Press the ` key", leaves what follows prose, while `new My` + `Vpc()` stays code). An agent that streams its answer a token at a time splits
 * identifiers anywhere (`getUser` + `Name`, `class My` + `Vpc`); inside code a break there would change the
 * code, so the running text always carries on (rules.ts). Kept up to date chunk by chunk, never by scanning
 * the whole reply again.
 */
export interface CodeScan {
  /** The fence that opened the block the reply is in ('' when none). */
  readonly fence: string;
  /** The line that opened that block (its fence and info string, `\`\`\`hcl`): a block the facade closed opens again under it. */
  readonly opener: string;
  /** The current line so far, as much of it as a fence line can be (longer is no fence). */
  readonly line: string;
  /** Backtick runs on the current line, and whether the last character was a backtick (a run split across chunks). */
  readonly ticks: number;
  readonly afterTick: boolean;
  /** The last run opened an inline span and nothing has followed it yet: white space next undoes it. */
  readonly opening: boolean;
}

export const NO_CODE: CodeScan = { fence: '', opener: '', line: '', ticks: 0, afterTick: false, opening: false };

/** A fence line's longest useful head: fence characters and an info string such as `hcl title="main.tf"`. */
const LINE_HEAD = 80;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Whether the reply stands in code: in a fenced block, but not on the line that closes it (a bare fence with no
 * line break after it yet: what comes next is outside, and words run on after it would undo the fence, so all
 * that follows would read as code), or on the line that opens one, or in an inline span.
 */
export const inCode = (scan: CodeScan): boolean => fenceOpen(scan) !== '' || (scan.fence === '' && scan.ticks % 2 === 1);

/**
 * The fenced block the reply stands in once its current line ends ('' when none): a file or a block sent whole
 * ends on its closing fence with no line break after it, which closes the block all the same.
 */
export const fenceOpen = (scan: CodeScan): string => (scan.line === '' ? scan.fence : fenceAfter(scan.fence, scan.line));

/** The line that opened the block fenceOpen tells (the current line, when it is the one that opens it). */
export const fenceOpener = (scan: CodeScan): string => (scan.fence === '' && fenceOpen(scan) !== '' ? scan.line : scan.opener);

/** The characters the scan reads, as UTF-16 code units (each is one). */
const NEWLINE = 0x0a;
const BACKTICK = 0x60;
const SPACE = 0x20;
const TAB = 0x09;

/** The scan after `text` is shown. */
export function scanCode(scan: CodeScan, text: string): CodeScan {
  let { fence, opener, line, ticks, afterTick, opening } = scan;
  // Where the current line's characters in `text` start: taken in one slice (lineWith), not one string per character.
  let lineFrom = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === NEWLINE) {
      line = lineWith(line, text, lineFrom, at);
      const after = fenceAfter(fence, line);
      if (after !== fence) opener = after === '' ? '' : line;
      fence = after;
      line = '';
      lineFrom = at + 1;
      ticks = 0;
      afterTick = false;
      opening = false;
      continue;
    }
    if (code === BACKTICK) {
      if (!afterTick) {
        ticks++;
        opening = ticks % 2 === 1;
      }
    } else {
      // A run that white space follows opened nothing: a backtick in prose.
      if (opening && (code === SPACE || code === TAB)) ticks--;
      opening = false;
    }
    afterTick = code === BACKTICK;
  }
  return { fence, opener, line: lineWith(line, text, lineFrom, text.length), ticks, afterTick, opening };
}

/**
 * `line` with the characters of `text` from `from` to `to`, as long as a fence line can be: a character is added
 * while the line is at most LINE_HEAD long, so it ends one past it, or two when a surrogate pair (one character)
 * crosses that length.
 */
function lineWith(line: string, text: string, from: number, to: number): string {
  if (from === to || line.length > LINE_HEAD) return line;
  let end = Math.min(to, from + LINE_HEAD + 1 - line.length);
  if (end < to && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end++;
  return line + text.slice(from, end);
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** The open fence once `line` has ended: opened, closed or as it was. */
function fenceAfter(fence: string, line: string): string {
  const match = FENCE_LINE.exec(line);
  if (!match || line.length > LINE_HEAD) return fence;
  const [, marks = '', rest = ''] = match;
  if (fence === '') return marks.startsWith('`') && rest.includes('`') ? '' : marks;
  const closes = marks.charAt(0) === fence.charAt(0) && marks.length >= fence.length && rest.trim() === '';
  return closes ? '' : fence;
}

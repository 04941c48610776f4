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

/** The scan after `text` is shown. */
export function scanCode(scan: CodeScan, text: string): CodeScan {
  let { fence, opener, line, ticks, afterTick, opening } = scan;
  for (const char of text) {
    if (char === '\n') {
      const after = fenceAfter(fence, line);
      if (after !== fence) opener = after === '' ? '' : line;
      fence = after;
      line = '';
      ticks = 0;
      afterTick = false;
      opening = false;
      continue;
    }
    if (line.length <= LINE_HEAD) line += char;
    if (char === '`') {
      if (!afterTick) {
        ticks++;
        opening = ticks % 2 === 1;
      }
    } else {
      // A run that white space follows opened nothing: a backtick in prose.
      if (opening && (char === ' ' || char === '\t')) ticks--;
      opening = false;
    }
    afterTick = char === '`';
  }
  return { fence, opener, line, ticks, afterTick, opening };
}

/** The open fence once `line` has ended: opened, closed or as it was. */
function fenceAfter(fence: string, line: string): string {
  const match = FENCE_LINE.exec(line);
  if (!match || line.length > LINE_HEAD) return fence;
  const [, marks = '', rest = ''] = match;
  if (fence === '') return marks.startsWith('`') && rest.includes('`') ? '' : marks;
  const closes = marks.charAt(0) === fence.charAt(0) && marks.length >= fence.length && rest.trim() === '';
  return closes ? '' : fence;
}

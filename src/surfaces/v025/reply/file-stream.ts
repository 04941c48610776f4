import { withFields, type Part } from '../../../model/index.js';
import { NO_CODE, type CodeScan } from './code-spans.js';
import { describeFile, fileNameOf, sameFile, type RenderOptions } from './render-parts.js';
import { fenceFor, fenceLanguage, isTextLike } from './text-files.js';
import type { FacadeWords } from './words.js';

/**
 * A file an artifact streams as raw bytes in appended chunks (`append: true`, then `lastChunk: true`) is one
 * file, not one file per chunk. Under `render-parts: text` with one reply artifact (Bailian), a readable
 * file is shown as it comes: its name and the fence's opening line with its first chunk, each chunk's
 * decoded text inside the open fence (an incomplete UTF-8 character at a chunk's end waits for the next
 * chunk), the closing fence with its last chunk, or before anything else the reply shows (reply-artifact.ts).
 * A file that is no readable text (binary, invalid UTF-8, too large) is described once, with its size, when
 * it ends. A chunk that says `lastChunk: true` or a file sent whole in one piece reads as render-parts.ts
 * renders it: the fence closed after its text.
 *
 * The file's text never changes whether the reply stands in code (code-spans.ts): while its fence is open
 * the reply stands in that fence, and once it is closed, where it stood before the file's header
 * (reply-artifact.ts). A later chunk whose backtick run is as long as the fence (a Markdown file's own ```
 * block) would close it early: the block is closed before that run's line and opened again under a fence
 * longer than any run in the rest of the chunk.
 */
export interface OpenFile {
  /** The artifact (`a:<id>`) the file is the last part of. */
  readonly key: string;
  /** Its first piece, whose name and type the next pieces share (render-parts.ts, `sameFile`). */
  readonly first: Part;
  /** Its name as shown (shown-names.ts), or the turn's word for a file (fileClosing has no options to take it from). */
  readonly name: string;
  /** `text`: shown in an open fence; `cut`: shown in part, the rest too large or not UTF-8; `binary`: described at its end. */
  readonly mode: 'text' | 'cut' | 'binary';
  readonly fence: string;
  /** The backticks its text shown so far ends with (a run a later chunk may go on with). */
  readonly ticksAtEnd: number;
  /** Where the reply stood before the file's header (at a line's start): restored when its fence closes. */
  readonly codeBefore: CodeScan;
  /** Its bytes so far. */
  readonly bytes: number;
  /** The bytes of a UTF-8 character the next chunk finishes. */
  readonly tail: Uint8Array;
  /** The last character shown of its text ('' before any). */
  readonly lastChar: string;
  /** How many pieces came: a file of one piece may be whole, so other text shows its description at once. */
  readonly pieces: number;
  /** Closed before anything else the reply showed while more may come: its next readable chunk opens it again. */
  readonly shut: boolean;
  /** Its size when it was last described (-1: never), so that its end describes it again only when it grew. */
  readonly describedAt: number;
}

const NO_BYTES = new Uint8Array(0);
const strict = new TextDecoder('utf-8', { fatal: true });

/** How many bytes at the end of `bytes` begin a UTF-8 character they do not finish (0 when none). */
function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    // A byte no character starts with (an ASCII one, 0xc0, 0xc1, past 0xf4) leaves the decoder to tell.
    const length = byte >= 0xf5 ? 0 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 ? 2 : 0;
    return length > back ? back : 0;
  }
  return 0;
}

function decoded(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The fence's opening line. */
const opening = (open: OpenFile): string => `${open.fence}${fenceLanguage(open.first.mediaType, open.first.filename)}\n`;

/** The header a readable file opens with: its name, then the fence's opening line. */
const header = (open: OpenFile): string => `${open.name}\n${opening(open)}`;

function trailingTicks(text: string): number {
  let at = text.length;
  while (at > 0 && text.charCodeAt(at - 1) === 96) at--;
  return text.length - at;
}

/** Where `text` first holds a backtick run of `length` or more (its first run going on `before` backticks shown), or -1. */
function runReaching(text: string, before: number, length: number): number {
  for (const run of text.matchAll(/`+/g)) if (run[0].length + (run.index === 0 ? before : 0) >= length) return run.index;
  return -1;
}

/**
 * A chunk's text under a fence its backticks cannot close: `fresh` (a header comes before it), the fence is
 * chosen for it; else, when a run in it would close the open fence, the block is closed before that run's
 * line (a line break first, if the line began in an earlier chunk) and opened again under a longer fence.
 */
function fenced(open: OpenFile, text: string, fresh: boolean): { open: OpenFile; text: string } {
  const before = fresh ? 0 : open.ticksAtEnd;
  const ending = (shown: string): number => (shown.length === trailingTicks(shown) ? before + shown.length : trailingTicks(shown));
  if (fresh) return { open: withFields(open, { fence: fenceFor(text), ticksAtEnd: ending(text) }), text };
  const at = runReaching(text, before, open.fence.length);
  if (at < 0) return { open: withFields(open, { ticksAtEnd: ending(text) }), text };
  // The run's line starts after the chunk's last line break before it; ticks shown before it on that line are fewer than the fence.
  const cut = text.lastIndexOf('\n', at) + 1;
  const [head, rest] = [text.slice(0, cut), text.slice(cut)];
  const shownLast = head === '' ? open.lastChar : head.charAt(head.length - 1);
  const reopened = withFields(open, { fence: fenceFor(rest), ticksAtEnd: trailingTicks(rest) });
  return { open: reopened, text: `${head}${shownLast === '\n' ? '' : '\n'}${open.fence}\n${opening(reopened)}${rest}` };
}

/** A piece's bytes added: the text they show (nothing for a file that is not shown as text). `fresh`: a header comes first. */
function fed(open: OpenFile, part: Part, options: RenderOptions, fresh: boolean): { open: OpenFile; text: string } {
  const bytes = Buffer.from(part.raw ?? '', 'base64');
  const total = open.bytes + bytes.length;
  const counted = { bytes: total, pieces: open.pieces + 1 };
  if (open.mode !== 'text') return { open: withFields(open, counted), text: '' };
  const all = open.tail.length > 0 ? Buffer.concat([open.tail, bytes]) : bytes;
  const held = total > options.inlineMaxBytes ? 0 : incompleteTail(all);
  const text = total > options.inlineMaxBytes ? undefined : decoded(all.subarray(0, all.length - held));
  if (text === undefined) return { open: withFields(open, withFields(counted, { mode: 'cut' as const, tail: NO_BYTES })), text: '' };
  const lastChar = text === '' ? open.lastChar : text.charAt(text.length - 1);
  const piece = fenced(open, text, fresh);
  return { open: withFields(piece.open, withFields(counted, { tail: all.subarray(all.length - held), lastChar })), text: piece.text };
}

/** A file's first piece: how it opens, and the text shown of it now (its header and text, or nothing). */
export function openFile(key: string, part: Part, options: RenderOptions): { open: OpenFile; text: string } {
  const readable = isTextLike(part.mediaType, part.filename);
  const start: OpenFile = {
    key,
    first: part,
    name: fileNameOf(part, options),
    mode: readable ? 'text' : 'binary',
    fence: '```',
    ticksAtEnd: 0,
    codeBefore: NO_CODE,
    bytes: 0,
    tail: NO_BYTES,
    lastChar: '',
    pieces: 0,
    shut: false,
    describedAt: -1,
  };
  const piece = fed(start, part, options, true);
  // A first piece that is no text makes the file a binary one: nothing of it was shown.
  if (piece.open.mode !== 'text') return { open: withFields(piece.open, { mode: 'binary' as const }), text: '' };
  return { open: piece.open, text: header(piece.open) + piece.text };
}

/** Whether `part` is the next piece of the open file (an appended chunk of its artifact). */
export const continuesFile = (open: OpenFile | undefined, key: string, part: Part | undefined): open is OpenFile =>
  open !== undefined && open.key === key && sameFile(open.first, part);

/**
 * The file's next piece: the text shown of it, and whether that opens its fence (a file shut before shows
 * its header again first; one shut that is no longer readable text stays shut, to be described at its end).
 */
export function feedFile(open: OpenFile, part: Part, options: RenderOptions): { open: OpenFile; text: string; opens: boolean } {
  const reopening = open.shut && open.mode === 'text';
  const piece = fed(open, part, options, reopening);
  // A chunk that only begins a character opens nothing yet.
  const opens = reopening && piece.open.mode === 'text' && piece.text !== '';
  if (!opens) return { open: piece.open, text: piece.text, opens };
  return { open: withFields(piece.open, { shut: false }), text: header(piece.open) + piece.text, opens };
}

/**
 * The text that closes the file: `fence`, the closing fence (after a line break, unless its text ended with
 * one), while its fence is open; `description`, what it is and its size, for a file not shown and for one cut
 * short: grown too large or not UTF-8. A file that stopped before its end is said to be cut off instead, in the
 * turn's language: `final` (it ended) with a UTF-8 character left unfinished, or `turnEnded` (the turn ended
 * while it waited for its last chunk) once a chunk was appended to it (a first piece that said nothing of its
 * last chunk reads as a whole file: an a2a-js agent sends `lastChunk: false` as nothing). Its size would read
 * as a second file after its part, and nothing would tell the part is not the file. A file whose fence other
 * text closed before is described at its end only when it was cut short (and has grown since it was last
 * described); said to be cut off, always.
 */
export function fileClosing(open: OpenFile, final: boolean, words: FacadeWords, turnEnded = false): { fence: string; description: string } {
  const cutOff = final && (open.tail.length > 0 || (turnEnded && open.pieces > 1));
  const description = cutOff ? words.fileCutOff(open.name) : describeFile(open.name, open.first.mediaType, open.bytes, words);
  const cutShort = cutOff || open.mode !== 'text';
  if (open.shut || open.mode === 'binary')
    return { fence: '', description: cutShort && (cutOff || open.describedAt !== open.bytes) ? description : '' };
  return { fence: `${open.lastChar === '\n' ? '' : '\n'}${open.fence}`, description: cutShort ? description : '' };
}

/**
 * The file once closed before something else (`described`: its description was shown): its next readable
 * chunk opens it again; one cut short is no longer shown, only described again at its end when it grew.
 */
export const shutFile = (open: OpenFile, described: boolean): OpenFile =>
  withFields(open, {
    shut: true,
    mode: open.mode === 'cut' ? ('binary' as const) : open.mode,
    describedAt: described ? open.bytes : open.describedAt,
  });

/** The code state inside the file's open fence, which its text does not change. */
export const insideFence = (open: OpenFile): CodeScan => withFields(NO_CODE, { fence: open.fence });

/** The code state once the file's fence is closed: where the reply stood before its header. */
export const afterFence = (open: OpenFile): CodeScan => open.codeBefore;

import { withFields, type Part } from '../../../model/index.js';
import { describeFile, fenceFor, fenceLanguage, isTextLike, sameFile, type RenderOptions } from './render-parts.js';

/**
 * A file an artifact streams as raw bytes in appended chunks (`append: true`, then `lastChunk: true`) is one
 * file, not one file per chunk. Under `render-parts: text` with one reply artifact (Bailian), a readable
 * file is shown as it comes: its name and the fence's opening line with its first chunk, each chunk's
 * decoded text inside the open fence (an incomplete UTF-8 character at a chunk's end waits for the next
 * chunk), the closing fence with its last chunk, or before anything else the reply shows (reply-artifact.ts).
 * A file that is no readable text (binary, invalid UTF-8, too large) is described once, with its size, when
 * it ends. A chunk that says `lastChunk: true` or a file sent whole in one piece reads as render-parts.ts
 * renders it: the fence closed after its text.
 */
export interface OpenFile {
  /** The artifact (`a:<id>`) the file is the last part of. */
  readonly key: string;
  /** Its first piece, whose name and type the next pieces share (render-parts.ts, `sameFile`). */
  readonly first: Part;
  /** `text`: shown in an open fence; `cut`: shown in part, the rest too large or not UTF-8; `binary`: described at its end. */
  readonly mode: 'text' | 'cut' | 'binary';
  readonly fence: string;
  /** Its bytes so far. */
  readonly bytes: number;
  /** The bytes of a UTF-8 character the next chunk finishes. */
  readonly tail: Uint8Array;
  /** The last character shown of its text ('' before any). */
  readonly lastChar: string;
  /** How many pieces came: a file of one piece may be whole, so other text shows its description at once. */
  readonly pieces: number;
  /** Closed before anything else the reply showed while more may come: its next chunk opens it again. */
  readonly shut: boolean;
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

const fileName = (part: Part): string => part.filename || 'file';

/** The header a readable file opens with: its name, then the fence's opening line. */
const header = (open: OpenFile): string => `${fileName(open.first)}\n${open.fence}${fenceLanguage(open.first.mediaType, open.first.filename)}\n`;

/** A piece's bytes added: the text they show (nothing for a file that is not shown as text). */
function fed(open: OpenFile, part: Part, options: RenderOptions): { open: OpenFile; text: string } {
  const bytes = Buffer.from(part.raw ?? '', 'base64');
  const total = open.bytes + bytes.length;
  const counted = { bytes: total, pieces: open.pieces + 1 };
  if (open.mode !== 'text') return { open: withFields(open, counted), text: '' };
  const all = open.tail.length > 0 ? Buffer.concat([open.tail, bytes]) : bytes;
  const held = total > options.inlineMaxBytes ? 0 : incompleteTail(all);
  const text = total > options.inlineMaxBytes ? undefined : decoded(all.subarray(0, all.length - held));
  if (text === undefined) return { open: withFields(open, withFields(counted, { mode: 'cut' as const, tail: NO_BYTES })), text: '' };
  const lastChar = text === '' ? open.lastChar : text.charAt(text.length - 1);
  return { open: withFields(open, withFields(counted, { tail: all.subarray(all.length - held), lastChar })), text };
}

/** A file's first piece: how it opens, and the text shown of it now (its header and text, or nothing). */
export function openFile(key: string, part: Part, options: RenderOptions): { open: OpenFile; text: string } {
  const readable = isTextLike(part.mediaType, part.filename);
  const start: OpenFile = {
    key,
    first: part,
    mode: readable ? 'text' : 'binary',
    fence: '```',
    bytes: 0,
    tail: NO_BYTES,
    lastChar: '',
    pieces: 0,
    shut: false,
  };
  const piece = fed(start, part, options);
  // A first piece that is no text makes the file a binary one: nothing of it was shown.
  if (piece.open.mode !== 'text') return { open: withFields(piece.open, { mode: 'binary' as const }), text: '' };
  const open = withFields(piece.open, { fence: fenceFor(piece.text) });
  return { open, text: header(open) + piece.text };
}

/** Whether `part` is the next piece of the open file (an appended chunk of its artifact). */
export const continuesFile = (open: OpenFile | undefined, key: string, part: Part | undefined): open is OpenFile =>
  open !== undefined && open.key === key && sameFile(open.first, part);

/** The file's next piece: the text shown of it (a file shut before shows its header again first). */
export function feedFile(open: OpenFile, part: Part, options: RenderOptions): { open: OpenFile; text: string } {
  const piece = fed(withFields(open, { shut: false }), part, options);
  const reopens = open.shut && open.mode === 'text' && piece.open.mode === 'text';
  return { open: piece.open, text: reopens ? header(piece.open) + piece.text : piece.text };
}

/**
 * The text that closes the file: the fence (after a line break, unless its text ended with one); for a
 * file cut short, its description after it; for a file not shown, its description. `final`: the file ended,
 * so a UTF-8 character it left unfinished makes it one cut short.
 */
export function fileClosing(open: OpenFile, final: boolean): string {
  const description = describeFile(fileName(open.first), open.first.mediaType, open.bytes);
  if (open.mode === 'binary') return description;
  const fence = `${open.lastChar === '\n' ? '' : '\n'}${open.fence}`;
  return open.mode === 'cut' || (final && open.tail.length > 0) ? `${fence}\n${description}` : fence;
}

/** The file once closed before something else: its next chunk opens it again (one cut short is described again at its end). */
export const shutFile = (open: OpenFile): OpenFile => withFields(open, { shut: true, mode: open.mode === 'cut' ? ('binary' as const) : open.mode });

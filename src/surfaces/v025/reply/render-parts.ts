import { partKind, withFields, type Part } from '../../../model/index.js';
import { inCode, NO_CODE, scanCode } from './code-spans.js';
import { asBytesPart, nameInUrl, shownLocation } from './file-urls.js';
import { lastWord } from './names-in-text.js';
import { shownName } from './shown-names.js';
import { isBlockLine, needsBlankLine } from './line-shapes.js';
import { grownTail } from './shown-tail.js';
import { carriesOn, SPACE, type Before } from './running-text.js';
import { facadeWords, type FacadeWords } from './words.js';
import { fenced, fenceLanguage, isTextLike } from './text-files.js';

/**
 * Parts as the text a text-only 0.2.5 caller (Bailian renders `text/plain` only) can show. Nothing
 * here fetches anything: a URL stays a line, bytes are shown only when they are readable text.
 */
export interface RenderOptions {
  /** Largest file (in bytes) shown inline; a larger one becomes its one-line description. */
  inlineMaxBytes: number;
  /** The facade's words in the turn's language (a file named nowhere is headed with its `file`, a size told in its `bytes`); absent: English. */
  words?: Pick<FacadeWords, 'file' | 'bytes'>;
}

/** The facade's words a rendering uses: the turn's, else English. */
const wordsOf = (options: RenderOptions): Pick<FacadeWords, 'file' | 'bytes'> => options.words ?? facadeWords('en');

/** A file's name as the reply shows it (shown-names.ts), else the turn's word for a file: a Chinese user is not told "file" in English. */
export const fileNameOf = (part: Part, options: RenderOptions): string => shownName(part.filename || wordsOf(options).file);

const strict = new TextDecoder('utf-8', { fatal: true });

function utf8OrUndefined(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `name (mediaType, N bytes)`: what a person is told of a file they cannot be shown, its size in the turn's words (`8 字节`). */
export function describeFile(name: string, mediaType: string | undefined, byteSize: number | undefined, words: Pick<FacadeWords, 'bytes'>): string {
  const facts = [mediaType, byteSize === undefined ? undefined : words.bytes(byteSize)].filter((fact) => fact !== undefined && fact !== '');
  return facts.length > 0 ? `${name} (${facts.join(', ')})` : name;
}

function declaredSize(part: Part): number | undefined {
  const size = part.metadata?.byteSize;
  return typeof size === 'number' && Number.isFinite(size) && size >= 0 ? Math.round(size) : undefined;
}

function renderRaw(part: Part, options: RenderOptions): string {
  const name = fileNameOf(part, options);
  const bytes = Buffer.from(part.raw ?? '', 'base64');
  // Text the agent sent as text is never only described: past the bound it is shown bare, as it was sent.
  const sentAsText = namedTexts.get(part);
  if (sentAsText !== undefined && bytes.length > options.inlineMaxBytes) return sentAsText;
  if (bytes.length > options.inlineMaxBytes || !isTextLike(part.mediaType, part.filename)) {
    return describeFile(name, part.mediaType, bytes.length, wordsOf(options));
  }
  const text = utf8OrUndefined(bytes);
  if (text === undefined) return describeFile(name, part.mediaType, bytes.length, wordsOf(options));
  return `${name}\n${fenced(text, fenceLanguage(part.mediaType, part.filename))}`;
}

/**
 * A file URL (file-urls.ts): a `data:` URL's bytes as those bytes read; a place the user can open or copy
 * as `name: location`, bare when the part names nothing and the location shows the name it ends with as
 * it reads (not encoded: `%E6%8A%A5%E5%91%8A.pdf` is given as `报告.pdf` first); anything else (a path on
 * the agent's disk, a URL only its agent resolves: `iac-code-artifact://`) described, named by the URL when
 * the part names nothing.
 */
function renderUrl(part: Part, options: RenderOptions): string {
  const bytes = asBytesPart(part);
  if (bytes) return renderRaw(bytes, options);
  const url = part.url ?? '';
  const inUrl = nameInUrl(url);
  const location = shownLocation(url);
  if (location === undefined)
    return describeFile(inUrl && !part.filename ? shownName(inUrl) : fileNameOf(part, options), part.mediaType, declaredSize(part), wordsOf(options));
  const name = part.filename || (inUrl !== undefined && !location.includes(inUrl) ? inUrl : '');
  return name ? `${shownName(name)}: ${location}` : location;
}

/** Data as the JSON it is; past `inlineMaxBytes` described, as a file that large is (a 3,000-row table read 290 KB). */
function renderData(part: Part, options: RenderOptions): string {
  const json = JSON.stringify(part.data ?? null, null, 2) ?? 'null';
  const bytes = Buffer.byteLength(json);
  // 0 is no bound for data: it says files are never shown inline, and data was always shown.
  if (options.inlineMaxBytes > 0 && bytes > options.inlineMaxBytes) {
    return part.filename
      ? describeFile(shownName(part.filename), part.mediaType ?? 'application/json', bytes, wordsOf(options))
      : describeFile('JSON', undefined, bytes, wordsOf(options));
  }
  const block = fenced(json, 'json');
  return part.filename ? `${shownName(part.filename)}\n${block}` : block;
}

/**
 * A text part that names a file (`filename: 'main.tf'`: an agent that sends its template as text) is that
 * file, and reads as the same file sent as bytes does: its name, then a fenced block in the language of its
 * name or type, also streamed in chunks (file-stream.ts). Shown as bare text, a template's `#` comment would
 * render as a Markdown heading. Its type is kept when it is a text-like one (it picks the fence's language);
 * any other says nothing of text the agent sent as text, so it reads as plain text.
 */
export function asFilePart(part: Part): Part {
  if (part.text === undefined || !part.filename) return part;
  const { text, mediaType, ...rest } = part;
  const type = isTextLike(mediaType, part.filename) ? mediaType : 'text/plain';
  const file = withFields(rest, { raw: Buffer.from(text, 'utf8').toString('base64'), mediaType: type });
  namedTexts.set(file, text);
  return file;
}

/** The text each part asFilePart made was sent as (renderRaw shows it bare where a file would only be described). */
const namedTexts = new WeakMap<Part, string>();

/** The parts with every named text part read as the file it is (asFilePart); the same list when there is none. */
export const withTextFiles = (parts: readonly Part[]): readonly Part[] =>
  parts.some((part) => part.text !== undefined && !!part.filename) ? parts.map(asFilePart) : parts;

/** One part as text: text as it is, readable files inlined (a named text part is one), data as JSON, the rest as one line. */
export function renderPart(part: Part, options: RenderOptions): string {
  switch (partKind(part)) {
    case 'text':
      return part.filename ? renderRaw(asFilePart(part), options) : (part.text ?? '');
    case 'raw':
      return renderRaw(part, options);
    case 'url':
      return renderUrl(part, options);
    case 'data':
      return renderData(part, options);
  }
}

/**
 * Whether `next`, appended to an artifact that ended with `previous`, starts a line of its own: as in
 * renderParts, every part that is not text does, and so does the text after one.
 */
export function startsLineAfter(given: Part | undefined, following: Part | undefined, options: RenderOptions): boolean {
  const [previous, next] = [given && asFilePart(given), following && asFilePart(following)];
  if (!previous || !next || (previous.text !== undefined && next.text !== undefined)) return false;
  const before = renderPart(previous, options);
  return before !== '' && !before.endsWith('\n');
}

/**
 * The parts of one artifact as one text: text parts run together (an artifact's text parts are pieces of
 * one text: the agent's SDK appends an appended chunk's parts to the stored artifact), every other part
 * stands on lines of its own.
 */
export function renderParts(parts: readonly Part[], options: RenderOptions): string {
  return joinRendered(joinFileParts(parts), options, false);
}

/** Whether two parts are pieces of one file's bytes: raw, and the same (non-empty) name and type. */
export const sameFile = (a: Part | undefined, b: Part | undefined): boolean =>
  a?.raw !== undefined && b?.raw !== undefined && !!a.filename && a.filename === b.filename && a.mediaType === b.mediaType;

/**
 * An artifact's parts with the adjacent pieces of one file joined: the agent's SDK stores an appended
 * chunk's parts in the artifact, so a file sent in chunks is held as several parts, which are one file.
 */
export function joinFileParts(given: readonly Part[]): readonly Part[] {
  const parts = withTextFiles(given);
  if (!parts.some((part, at) => sameFile(parts[at - 1], part))) return parts;
  // Runs of one file's pieces, each joined once: a long file comes in thousands of chunks.
  const runs: Part[][] = [];
  for (const part of parts) {
    const run = runs.at(-1);
    if (run && sameFile(run[0], part)) run.push(part);
    else runs.push([part]);
  }
  return runs.map(([head, ...rest]) =>
    rest.length === 0
      ? head!
      : withFields(head, { raw: Buffer.concat([head!, ...rest].map((part) => Buffer.from(part.raw ?? '', 'base64'))).toString('base64') }),
  );
}

/**
 * The parts of one message as one text: every part that is not text stands on lines of its own, as in an
 * artifact; text parts meet as two working messages do (running-text.ts): an agent may put its paragraphs
 * in parts of their own ("First part.", "Second part."), or a text cut in pieces ("Deploy", "ing"). Inside
 * code they always run together.
 */
export function renderMessageParts(parts: readonly Part[], options: RenderOptions): string {
  return joinRendered(parts, options, true);
}

/** Whether the first and the last part that say something are not text: such a message stands on lines of its own. */
export function partEdges(parts: readonly Part[]): { opens: boolean; closes: boolean } {
  // Every part that is not text renders to something (at least a file's name); an empty text part says nothing.
  const saying = withTextFiles(parts).filter((part) => part.text !== '');
  return { opens: saying.length > 0 && saying[0]?.text === undefined, closes: saying.length > 0 && saying.at(-1)?.text === undefined };
}

/** Whether a running text part goes on the line `out` ends; after a heading or a quote on a line of its own (`blockLine`), only with white space. */
const goesOnLine = (out: string, text: string, blockLine: boolean, before: Before | undefined): boolean =>
  blockLine ? SPACE.test(text.charAt(0)) : carriesOn(out.charAt(out.length - 1), text, before);

function joinRendered(parts: readonly Part[], options: RenderOptions, running: boolean): string {
  let out = '';
  let previousWasText = true;
  let code = NO_CODE;
  let before: Before | undefined;
  // The last word of `out`, kept as it grows: read from `out` itself, a long message's parts cost O(n²).
  let word = '';
  // A heading or a quote part this put on a line of its own: the next part starts a line too (ReplyState.blockLine).
  let blockLine = false;
  // The end of `out`, where a table's row or a list item is read (shown-tail.ts: reading `out` itself copies all of it).
  let tail = '';
  for (const part of withTextFiles(parts)) {
    const isText = part.text !== undefined;
    const text = renderPart(part, options);
    if (text === '') continue;
    const afterPart = !isText || !previousWasText;
    // Typed: it reads `blockLine`, which the loop assigns from it, and TypeScript would infer that circularly. Whether the
    // part goes on the line is asked only where it decides: the first part, or one after a file, starts no line or one
    // anyway, and a message is mostly one part (the boundary rules cost some 17 k instructions a send: bench/README.md).
    const newLine: boolean =
      out !== '' && !out.endsWith('\n') && (afterPart || (running && !inCode(code) && !goesOnLine(out, text, blockLine, before)));
    // After a table's row or a list item, a part that does not go on with it stands after a blank line (line-shapes.ts).
    const apart = newLine && running && !inCode(code) && needsBlankLine(tail, `\n${text}`, tail.length === out.length);
    const piece = newLine ? `${apart ? '\n\n' : '\n'}${text}` : text;
    blockLine = running && isText && newLine && isBlockLine(text);
    if (running) {
      word = lastWord(word + piece);
      code = scanCode(code, piece);
      // The line shown so far tells a Markdown rule (`A ` + `---`) from a dash run in a sentence (line-shapes.ts).
      before = isText ? { text, word, line: code.line } : undefined;
    }
    out += piece;
    tail = grownTail(tail, piece);
    previousWasText = isText;
  }
  return out;
}

import type { V025StreamEvent, V025TaskArtifactUpdateEvent } from '../../../protocol/v025/index.js';
import { fenceOpen, fenceOpener, NO_CODE, scanCode, type CodeScan } from './code-spans.js';
import { afterFence, fileClosing, insideFence, shutFile, type OpenFile } from './file-stream.js';
import { isBlockLine } from './line-shapes.js';
import { notePiece } from './pieces.js';
import { denseLength, startsSegment } from './rules.js';
import { separatorBefore } from './running-text.js';
import { grownTail } from './shown-tail.js';
import { draftOf, isArtifactKey, type DraftState, type ReplyOptions, type ReplyState, type SegmentSource, withState } from './state.js';
import { withFields } from '../../../model/index.js';

/** The turn's reply artifact: its chunks, and what the reducer remembers of the text they carried. */

/**
 * Sends `text` as the next chunk of the turn's reply artifact and remembers it as shown. One copy of
 * the state per chunk: this runs for every chunk of a streamed reply. `flows`: the text is the agent's
 * running text (a working message), which may carry on the one before it without a line break.
 */
export function showText(
  state: ReplyState,
  text: string,
  key: string,
  last: boolean,
  out: V025StreamEvent[],
  options: ReplyOptions,
  flows = false,
): ReplyState {
  if (closesBefore(state.openFile, key)) return showText(closeFile(state, false, out, options), text, key, last, out, options, flows);
  if (closesCodeBefore(state, key, flows, text)) return showText(closeCode(state, out, options), text, key, last, out, options, flows);
  if (state.closedCode?.key === key)
    return showText(withState(state, { closedCode: undefined }), reopened(state, text), key, last, out, options, flows);
  const fresh = startsSegment(key, state);
  const separator = fresh ? separatorBefore(text, state, flows) : '';
  // A blank piece (a line break sent alone) is no start a repeat could be said from: the segment's first words are.
  if (denseLength(text) > 0 && (fresh || blankSoFar(state)))
    notePiece(state.pieces, state.shownDense, state.shown.length + separator.length, isArtifactKey(key));
  const shownText = separator + text;
  const replyArtifactId = state.replyArtifactId ?? options.newId();
  out.push(replyChunk(state, shownText, last, replyArtifactId));
  const next = draftOf(state);
  append(next, state, shownText);
  takeSegmentInto(next, state, key, text, flows);
  next.replyArtifactId = replyArtifactId;
  next.replyChunks = state.replyChunks + 1;
  // A heading or a quote on a line the facade started for it: the message is the whole line (line-shapes.ts).
  next.blockLine = fresh ? separator !== '' && isBlockLine(text) : state.blockLine && !text.includes('\n');
  return next;
}

/** The most blanks a segment's lead is read for: a model's first token (a line break or two), not a scan per token. */
const BLANK_LEAD_MAX = 16;

/**
 * Whether the current segment has said only blanks so far (an answer streamed from a line break on): its first
 * words start its piece, which a message that says the answer again, then asks, restates (rules.ts, addedToShown).
 */
const blankSoFar = (state: ReplyState): boolean => state.segmentText.length <= BLANK_LEAD_MAX && denseLength(state.segmentText) === 0;

/**
 * Whether other text must close the open file first (file-stream.ts): a fence left open would hold it. A
 * file not shown as text is described then only while it may be whole (one piece came); one known to come
 * in chunks is described at its end, with its whole size.
 */
const closesBefore = (open: OpenFile | undefined, key: string): open is OpenFile =>
  open !== undefined && !open.shut && open.key !== key && (open.mode !== 'binary' || open.pieces === 1);

/**
 * Whether a fence the agent left open must be closed before `text` under `key`: anything but more of the
 * agent's running text (a failure's reason, a question, a whole message, another artifact, a file's or a data
 * part's block, the facade's own words) is not the agent's code, and shown inside its block it would read as
 * code ("Quota exceeded" as a line of the bash script, a file's own fence as a line of it). The running text
 * is the agent's: its next token may well go on with the code. A streamed file's fence is closed by the file
 * (closeFile), not here.
 */
const closesCodeBefore = (state: ReplyState, key: string, flows: boolean, text: string): boolean =>
  !flows && fenceOpen(state.code) !== '' && !inOpenFile(state) && startsSegment(key, state) && !closesItself(fenceOpen(state.code), text);

/**
 * Whether `text` goes on with the agent's open block and closes it itself: its first fence line is a bare one
 * of that fence (`ls` then ```` ``` ```` then `Done.`; a whole answer sent again after its tokens). A block the
 * facade writes (a file's, a data part's) opens with a fence that names its language.
 */
function closesItself(fence: string, text: string): boolean {
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!/^(?:`{3,}|~{3,})/u.test(trimmed)) continue;
    return trimmed.charAt(0) === fence.charAt(0) && /^(?:`{3,}|~{3,})$/u.test(trimmed) && trimmed.length >= fence.length;
  }
  return false;
}

const inOpenFile = ({ openFile }: ReplyState): boolean => openFile !== undefined && !openFile.shut && openFile.mode !== 'binary';

/**
 * Closes the fenced block the reply stands in, on a line of its own, so that what follows reads outside it.
 * Not part of any segment: the agent did not write it, and the repeat rules compare the agent's words.
 */
export function closeCode(state: ReplyState, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const fence = fenceOpen(state.code);
  if (fence === '' || inOpenFile(state)) return state;
  const closing = `${state.shownLast === '\n' ? '' : '\n'}${fence}\n`;
  const replyArtifactId = state.replyArtifactId ?? options.newId();
  out.push(replyChunk(state, closing, false, replyArtifactId));
  // Only an artifact's next appended chunk surely goes on with its code; a message under the same id may be anything.
  const next = draftOf(state);
  append(next, state, closing);
  next.replyArtifactId = replyArtifactId;
  next.replyChunks = state.replyChunks + 1;
  next.closedCode = isArtifactKey(state.segmentKey) ? { key: state.segmentKey!, opener: fenceOpener(state.code) } : undefined;
  next.blockLine = false;
  return next;
}

/**
 * More text of the one whose block closeCode closed: the agent's code goes on, so it is shown in that block
 * opened again (on a line of its own; the line the text broke off in stays cut).
 */
function reopened(state: ReplyState, text: string): string {
  const opener = state.closedCode?.opener ?? '';
  // Text that stands in code already (something else opened a block since) goes on in it.
  if (opener === '' || fenceOpen(state.code) !== '') return text;
  return text.startsWith('\n') ? `\n${opener}${text}` : `${opener}\n${text}`;
}

/**
 * A piece of the open file's text: inside its fence it goes on as it came; `fresh` (a header, a description)
 * starts a line. Its text never changes whether the reply stands in code (file-stream.ts).
 */
export function showFilePiece(
  state: ReplyState,
  text: string,
  key: string,
  fresh: boolean,
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  if (text === '') return state;
  const breaking = withState(state, { breakPending: fresh });
  // A header starts the file's block: the agent's code is closed first (inFile keeps where the reply stood before it).
  const ready = fresh ? closeCodeBeforeFile(breaking, key, out, options) : breaking;
  return inFile(ready, showText(ready, text, key, false, out, options), text, fresh ? 0 : -1);
}

/** The text that opens the file `state.openFile` (other parts of its chunk, then from `headerAt` on its header and first text). */
export function showFileOpening(
  state: ReplyState,
  text: string,
  headerAt: number,
  key: string,
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  if (text === '') return state;
  const ready = closeCodeBeforeFile(state, key, out, options);
  return inFile(ready, showText(ready, text, key, false, out, options), text, headerAt);
}

/** The agent's code closed before a file's header, which is never running text (closesCodeBefore). */
function closeCodeBeforeFile(state: ReplyState, key: string, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const before = withState(state, { openFile: undefined });
  return closesCodeBefore(before, key, false, '') ? withState(closeCode(before, out, options), { openFile: state.openFile }) : state;
}

/** A code scan at the start of a line, as it stands in its block. */
const lineStart = (scan: CodeScan): CodeScan => (scan.fence === '' ? NO_CODE : withFields(NO_CODE, { fence: scan.fence, opener: scan.opener }));

/**
 * The reply once `text` (from `headerAt` on the open file's header, or -1: only its text) is shown: while the
 * file's fence is open the reply stands inside it, whatever the file's text holds (its own ``` lines); the
 * code state before the header is kept for its closing (closeFile).
 */
function inFile(before: ReplyState, after: ReplyState, text: string, headerAt: number): ReplyState {
  const open = after.openFile;
  if (open === undefined || open.shut || open.mode === 'binary') return after;
  if (headerAt < 0) return withState(after, { code: insideFence(open) });
  // The separator showText put before the text is a line break, when there is one.
  const separator = after.shown.length - before.shown.length > text.length ? '\n' : '';
  const codeBefore = lineStart(scanCode(before.code, separator + text.slice(0, headerAt)));
  return withState(after, { code: insideFence(open), openFile: withFields(open, { codeBefore }) });
}

/**
 * Closes the open file: its closing fence or its description. `final`: it ended (its last chunk, another
 * artifact's part after it, the turn's end); otherwise other text comes while more of it may follow.
 * `turnEnded`: the turn ended before its last chunk, so a file streamed in chunks is said to be cut off
 * (file-stream.ts). Once its fence is closed the reply stands where it stood before the file's header.
 */
export function closeFile(state: ReplyState, final: boolean, out: V025StreamEvent[], options: ReplyOptions, turnEnded = false): ReplyState {
  const open = state.openFile;
  if (open === undefined) return state;
  if (open.shut && !final) return state;
  const { fence, description } = fileClosing(open, final, options.words, turnEnded);
  const next = withState(state, { openFile: final ? undefined : shutFile(open, description !== '') });
  if (fence === '') return showFilePiece(next, description, open.key, true, out, options);
  const after = description === '' ? '' : `\n${description}`;
  const closed = showFilePiece(next, fence + after, open.key, false, out, options);
  return withState(closed, { code: scanCode(afterFence(open), after) });
}

/** `next` (a draft of `state`) with `text` added to `shown`, and its measures updated from `text` alone. */
function append(next: DraftState, state: ReplyState, text: string): void {
  next.shown = state.shown + text;
  // A draft holds `state`'s measures already.
  if (text === '') return;
  next.shownDense = state.shownDense + denseLength(text);
  next.shownLast = text.charAt(text.length - 1);
  next.shownTail = grownTail(state.shownTail, text);
  next.code = scanCode(state.code, text);
}

/** One chunk of the turn's reply artifact: always appended, so a client that joins them reads the reply. */
export function replyChunk(
  state: ReplyState,
  text: string,
  lastChunk: boolean,
  artifactId = state.replyArtifactId ?? state.taskId,
): V025TaskArtifactUpdateEvent {
  return {
    kind: 'artifact-update',
    taskId: state.taskId,
    contextId: state.contextId,
    artifact: { artifactId, parts: [{ kind: 'text', text }] },
    append: true,
    lastChunk,
  };
}

/** Makes `text` part of the segment under `key`, finishing the previous segment when this one is new. */
export function takeSegment(state: ReplyState, key: string, text: string): ReplyState {
  const next = draftOf(state);
  takeSegmentInto(next, state, key, text, false);
  return next;
}

/** `next` (a draft of `state`) with `text` taken under `key` (finishing the previous segment into the shared set). */
function takeSegmentInto(next: DraftState, state: ReplyState, key: string, text: string, flows: boolean): void {
  // The same segment goes on: its key, break and flow are `state`'s, which the draft holds.
  if (!startsSegment(key, state)) {
    next.segmentText = state.segmentText + text;
    return;
  }
  const finished = state.segmentText.trim();
  if (finished !== '') {
    const segments = state.segments as Map<string, SegmentSource>;
    const source = isArtifactKey(state.segmentKey) ? 'artifact' : 'message';
    const known = segments.get(finished);
    segments.set(finished, known === undefined || known === source ? source : 'both');
    (state.sinceMessage as Set<string>).add(finished);
  }
  next.segmentKey = key;
  next.segmentText = text;
  next.breakPending = false;
  next.segmentFlows = flows;
  // A message's words after the segments before it: those are no longer what the user read last.
  if (!isArtifactKey(key)) next.sinceMessage = new Set<string>();
}

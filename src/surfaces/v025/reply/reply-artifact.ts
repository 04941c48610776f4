import type { V025StreamEvent, V025TaskArtifactUpdateEvent } from '../../../protocol/v025/index.js';
import { scanCode } from './code-spans.js';
import { fileClosing, shutFile, type OpenFile } from './file-stream.js';
import { notePiece } from './pieces.js';
import { denseLength, startsSegment } from './rules.js';
import { separatorBefore } from './running-text.js';
import { isArtifactKey, type ReplyOptions, type ReplyState, type SegmentSource } from './state.js';
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
  const fresh = startsSegment(key, state);
  const separator = fresh ? separatorBefore(text, state, flows) : '';
  // A blank piece (a line break sent alone) is no start a repeat could be said from.
  if (fresh && denseLength(text) > 0) notePiece(state.pieces, state.shownDense, state.shown.length + separator.length);
  const shownText = separator + text;
  const replyArtifactId = state.replyArtifactId ?? options.newId();
  out.push(replyChunk(state, shownText, last, replyArtifactId));
  const changes: Partial<ReplyState> = appended(state, shownText);
  return withFields(state, Object.assign(changes, segmentTaking(state, key, text, flows), { replyArtifactId, replyChunks: state.replyChunks + 1 }));
}

/**
 * Whether other text must close the open file first (file-stream.ts): a fence left open would hold it. A
 * file not shown as text is described then only while it may be whole (one piece came); one known to come
 * in chunks is described at its end, with its whole size.
 */
const closesBefore = (open: OpenFile | undefined, key: string): open is OpenFile =>
  open !== undefined && !open.shut && open.key !== key && (open.mode !== 'binary' || open.pieces === 1);

/** A piece of an open file's text: inside its fence it goes on as it came; `fresh` (a header, a description) starts a line. */
export function showFilePiece(
  state: ReplyState,
  text: string,
  key: string,
  fresh: boolean,
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  return text === '' ? state : showText(withFields(state, { breakPending: fresh }), text, key, false, out, options);
}

/**
 * Closes the open file: its closing fence or its description. `final`: it ended (its last chunk, another
 * artifact's part after it, the turn's end); otherwise other text comes while more of it may follow.
 */
export function closeFile(state: ReplyState, final: boolean, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const open = state.openFile;
  if (open === undefined) return state;
  if (open.shut) return final ? withFields(state, { openFile: undefined }) : state;
  const next = withFields(state, { openFile: final ? undefined : shutFile(open) });
  return showFilePiece(next, fileClosing(open, final), open.key, open.mode === 'binary', out, options);
}

type Measures = Pick<ReplyState, 'shown' | 'shownDense' | 'shownLast' | 'code'>;

/** `shown` with `text` added, and its measures updated from `text` alone (a fresh object). */
function appended(state: ReplyState, text: string): Measures {
  const shown = state.shown + text;
  if (text === '') return { shown, shownDense: state.shownDense, shownLast: state.shownLast, code: state.code };
  return { shown, shownDense: state.shownDense + denseLength(text), shownLast: text.charAt(text.length - 1), code: scanCode(state.code, text) };
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
  return withFields(state, segmentTaking(state, key, text, false));
}

type SegmentFields = Pick<ReplyState, 'segmentKey' | 'segmentText' | 'breakPending' | 'segmentFlows'>;

/** The segment fields once `text` is taken under `key` (finishing the previous segment into the shared set). */
function segmentTaking(state: ReplyState, key: string, text: string, flows: boolean): SegmentFields {
  if (!startsSegment(key, state)) {
    return {
      segmentKey: state.segmentKey,
      segmentText: state.segmentText + text,
      breakPending: state.breakPending,
      segmentFlows: state.segmentFlows,
    };
  }
  const finished = state.segmentText.trim();
  if (finished !== '') {
    const segments = state.segments as Map<string, SegmentSource>;
    const source = isArtifactKey(state.segmentKey) ? 'artifact' : 'message';
    const known = segments.get(finished);
    segments.set(finished, known === undefined || known === source ? source : 'both');
  }
  return { segmentKey: key, segmentText: text, breakPending: false, segmentFlows: flows };
}

import type { V025StreamEvent, V025TaskArtifactUpdateEvent } from '../../../protocol/v025/index.js';
import { separatorBefore, startsSegment } from './rules.js';
import type { ReplyOptions, ReplyState } from './state.js';

/** The turn's reply artifact: its chunks, and what the reducer remembers of the text they carried. */

/** Sends `text` as the next chunk of the turn's reply artifact and remembers it as shown. */
export function showText(state: ReplyState, text: string, key: string, last: boolean, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const fresh = startsSegment(key, state);
  const shownText = (fresh ? separatorBefore(text, state) : '') + text;
  const replyArtifactId = state.replyArtifactId ?? options.newId();
  out.push(replyChunk({ ...state, replyArtifactId }, shownText, last));
  return {
    ...takeSegment(state, key, text),
    shown: state.shown + shownText,
    replyArtifactId,
    replyChunks: state.replyChunks + 1,
  };
}

/** One chunk of the turn's reply artifact: always appended, so a client that joins them reads the reply. */
export function replyChunk(state: ReplyState, text: string, lastChunk: boolean): V025TaskArtifactUpdateEvent {
  return {
    kind: 'artifact-update',
    taskId: state.taskId,
    contextId: state.contextId,
    artifact: { artifactId: state.replyArtifactId ?? state.taskId, parts: [{ kind: 'text', text }] },
    append: true,
    lastChunk,
  };
}

/** Makes `text` part of the segment under `key`, finishing the previous segment when this one is new. */
export function takeSegment(state: ReplyState, key: string, text: string): ReplyState {
  if (!startsSegment(key, state)) return { ...state, segmentText: state.segmentText + text };
  const finished = state.segmentText.trim();
  return {
    ...state,
    segments: finished === '' ? state.segments : [...state.segments, finished],
    segmentKey: key,
    segmentText: text,
    breakPending: false,
  };
}

import type { V025StreamEvent, V025TaskArtifactUpdateEvent } from '../../../protocol/v025/index.js';
import { separatorBefore, startsSegment } from './rules.js';
import type { ReplyOptions, ReplyState } from './state.js';
import { withFields } from '../../../model/index.js';

/** The turn's reply artifact: its chunks, and what the reducer remembers of the text they carried. */

/** Sends `text` as the next chunk of the turn's reply artifact and remembers it as shown. */
export function showText(state: ReplyState, text: string, key: string, last: boolean, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const fresh = startsSegment(key, state);
  const shownText = (fresh ? separatorBefore(text, state) : '') + text;
  const replyArtifactId = state.replyArtifactId ?? options.newId();
  out.push(replyChunk(withFields(state, { replyArtifactId }), shownText, last));
  return withFields(takeSegment(state, key, text), withFields(appended(state, shownText), { replyArtifactId, replyChunks: state.replyChunks + 1 }));
}

const LEADING_SPACE = /^\s*/;
const TRAILING_SPACE = /\s*$/;

/** `shown` with `text` added, and its measures updated from `text` alone. */
function appended(state: ReplyState, text: string): Pick<ReplyState, 'shown' | 'shownCore' | 'shownTrail' | 'shownEndsLine'> {
  const shown = state.shown + text;
  if (text === '') return { shown, shownCore: state.shownCore, shownTrail: state.shownTrail, shownEndsLine: state.shownEndsLine };
  const lead = LEADING_SPACE.exec(text)?.[0].length ?? 0;
  const shownEndsLine = text.endsWith('\n');
  if (lead === text.length) return { shown, shownCore: state.shownCore, shownTrail: state.shownTrail + text.length, shownEndsLine };
  const trail = TRAILING_SPACE.exec(text)?.[0].length ?? 0;
  // Leading white space of a reply that had no text yet is not part of its core.
  const before = state.shownCore === 0 ? 0 : state.shownCore + state.shownTrail + lead;
  return { shown, shownCore: before + text.length - lead - trail, shownTrail: trail, shownEndsLine };
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
  if (!startsSegment(key, state)) return withFields(state, { segmentText: state.segmentText + text });
  const finished = state.segmentText.trim();
  if (finished !== '') (state.segments as Set<string>).add(finished);
  return withFields(state, { segmentKey: key, segmentText: text, breakPending: false });
}

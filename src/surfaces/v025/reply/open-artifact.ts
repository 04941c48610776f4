import { withFields, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '../../../model/index.js';
import { fenceOpen, inCode } from './code-spans.js';
import type { ReplyOptions, ReplyState } from './state.js';

/**
 * An artifact streamed in chunks (`append: true`) is one text; an agent may send progress messages between
 * its chunks ("Progress 1." while it writes a template). Shown as they come, they would cut the artifact's
 * text where the chunk stopped: inside a line of code, inside a word. So, under `single` (the reply is one
 * text), while the reply stands inside an open artifact's text (its last chunk has not come) in the middle
 * of a line or inside Markdown code, working messages are held, in order, and shown once it stops at a
 * line's end outside code, its last chunk comes, or anything else comes (another artifact, a status that is
 * not a working message, the turn's end), or the hold is full (MAX_HELD_MESSAGES, MAX_HELD_CHARS). An artifact that stops at a line's end outside code is prose (or
 * code the facade cannot tell from it): a progress line between its lines is shown when it comes, so no
 * text waits on an artifact that never says it is done.
 */

/** How held progress is shown: each status update as the reducer shows it (reducer.ts, onPlainStatus), after the code it stood in is closed (reply-artifact.ts, closeCode). */
export interface ShowStatus {
  readonly status: (state: ReplyState, event: TaskStatusUpdateEvent) => ReplyState;
  readonly closeCode: (state: ReplyState) => ReplyState;
}

/** Whether the reply stands inside the text of an open artifact, where a line of progress would cut it. */
function insideOpenArtifact(state: ReplyState): boolean {
  const { openArtifact, segmentKey, breakPending } = state;
  return openArtifact !== undefined && openArtifact === segmentKey && !breakPending && (inCode(state.code) || state.shownLast !== '\n');
}

/**
 * How much progress is held at most, in messages and in characters of their text: past either, what is held
 * is shown and the artifact no longer waited on. An agent that leaves an artifact open mid-line and then
 * streams its answer a token at a time, each in a message of its own, would otherwise have all of it hidden
 * until the turn ends.
 */
export const MAX_HELD_MESSAGES = 64;
export const MAX_HELD_CHARS = 4_000;

/** Whether a status update is a working message to hold until the open artifact's text stops (behind any held already, while the hold has room). */
export function holdsProgress(state: ReplyState, event: TaskStatusUpdateEvent, options: ReplyOptions): boolean {
  const { message } = event.status;
  if (options.replyArtifacts !== 'single' || event.status.state !== 'TASK_STATE_WORKING' || message?.role !== 'ROLE_AGENT') return false;
  const held = state.heldProgress.length;
  if (held >= MAX_HELD_MESSAGES || state.heldProgressChars >= MAX_HELD_CHARS) return false;
  return held > 0 || insideOpenArtifact(state);
}

const textLength = (event: TaskStatusUpdateEvent): number =>
  (event.status.message?.parts ?? []).reduce((sum, part) => sum + (part.text?.length ?? 0), 0);

/**
 * `event` held. Appended in place, as `segments` grows (state.ts): the reducer is folded in order, never
 * replayed from an older state, and a fresh list starts each hold, so no earlier state's list is changed.
 */
export function holding(state: ReplyState, event: TaskStatusUpdateEvent): ReplyState {
  const heldProgressChars = state.heldProgressChars + textLength(event);
  if (state.heldProgress.length === 0) return withFields(state, { heldProgress: [event], heldProgressChars });
  (state.heldProgress as TaskStatusUpdateEvent[]).push(event);
  return withFields(state, { heldProgressChars });
}

/**
 * The held working messages, shown in the order they came (the open artifact is no longer the place to hold
 * them). They are not the artifact's code: a fence it left open (the hold is full, or it ended or broke off
 * in code) is closed first, so they stand on lines of their own, outside its block, read as progress
 * messages are (running-text.ts), not run together as code would be.
 */
export function withProgressShown(state: ReplyState, show: ShowStatus): ReplyState {
  if (state.heldProgress.length === 0) return state;
  let next: ReplyState = show.closeCode(withFields(state, { heldProgress: [], heldProgressChars: 0, openArtifact: undefined }));
  for (const event of state.heldProgress) next = show.status(next, event);
  return next;
}

/** Before an artifact's update: anything but the open artifact's next chunk shows what was held first, as it came before it. */
export const beforeArtifact = (state: ReplyState, event: TaskArtifactUpdateEvent, show: ShowStatus): ReplyState =>
  event.append === true && state.openArtifact === `a:${event.artifact.artifactId}` ? state : withProgressShown(state, show);

/**
 * Whether an artifact's text left the reply inside a fenced block (not a streamed file's: file-stream.ts):
 * no whole text leaves its fence open, so one that says nothing of its last chunk is a first chunk, and its
 * code goes on in the next.
 */
const leftInCode = (state: ReplyState): boolean =>
  fenceOpen(state.code) !== '' && (state.openFile === undefined || state.openFile.shut || state.openFile.mode === 'binary');

/**
 * After an artifact's update: open while it is streamed (an appended chunk, or one that says `lastChunk:
 * false`) until its last chunk; what was held is shown once the reply is no longer inside it. A whole
 * artifact that says nothing of its last chunk is not open: a first chunk reads so too (an a2a-js agent leaves
 * `lastChunk: false` out), but most such artifacts are whole, and a progress line after one must not wait.
 */
export function afterArtifact(state: ReplyState, event: TaskArtifactUpdateEvent, show: ShowStatus, options: ReplyOptions): ReplyState {
  const streamed = event.lastChunk === false || (event.lastChunk !== true && (event.append === true || leftInCode(state)));
  const open = options.replyArtifacts === 'single' && streamed ? `a:${event.artifact.artifactId}` : undefined;
  const next = open === state.openArtifact ? state : withFields(state, { openArtifact: open });
  return insideOpenArtifact(next) ? next : withProgressShown(next, show);
}

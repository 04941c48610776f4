import { withFields, type StreamResponse, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '../../../model/index.js';
import { fenceOpen, inCode } from './code-spans.js';
import { artifactKey, type HeldEvent, type ReplyOptions, type ReplyState, withState } from './state.js';

/**
 * An artifact streamed in chunks (`append: true`) is one text; an agent may send progress messages between
 * its chunks ("Progress 1." while it writes a template). Shown as they come, they would cut the artifact's
 * text where the chunk stopped: inside a line of code, inside a word, under a heading before its section's
 * first line. So, under `single` (the reply is one text), while the reply stands inside an open artifact's
 * text (its last chunk has not come) in the middle of a line, inside Markdown code or right under a heading,
 * working messages are held, in order, and shown once it stops at another line's end outside code, its last
 * chunk comes, or anything else comes (a status that is not a working message, the turn's end; another
 * artifact waits behind them, below), or the hold is full (MAX_HELD_MESSAGES, MAX_HELD_CHARS). When held
 * events are relayed, those after each one are already here (ReplyState.queued): an artifact whose next chunk
 * is among them streams, and progress relayed between two of its chunks waits after them. An artifact that
 * stops at a line's end outside code (under no heading) is prose (or code the facade cannot tell from it): a
 * progress line between its lines is shown when it comes.
 *
 * Two artifacts streamed at the same time would read interleaved, each cut by the other's chunks. So while an
 * artifact is unfinished (shown, its last chunk not come), another artifact's updates wait, and so does
 * everything after them (in order), until its last chunk comes: then what waited is relayed once, in order, so
 * each artifact reads together, the second after the first, and the second, now unfinished, holds what comes
 * after it in turn. Everything waiting is shown, and nothing waited on any more, at a status that is not a
 * working message, at the turn's end, when the hold is full, and at a working message while the waited-on
 * artifact stands at a line's end (as held progress is) and nothing waiting says it streams: an agent that never
 * closes a log artifact keeps its progress live. An a2a-js agent sends a first chunk's `lastChunk: false` as
 * nothing, so a first piece that says nothing of its last chunk may be whole or the first of many: the agent's
 * next event tells (its next chunk: it is streamed; a status, a message, a second other artifact: it was whole,
 * and what waits is shown; a working message only when something waits for the tell). Whatever is told, an
 * artifact's own chunks are never shown out of their order, and the next chunk of an artifact already shown
 * never waits behind one that is not known to stream (goesOnBeside): its start is on screen, so waiting would
 * only put its words after the other's later ones.
 */

/** How held events are shown: each as the reducer relays it (reducer.ts, apply; it may wait again), after the code it stood in is closed (reply-artifact.ts, closeCode). */
export interface ShowHeld {
  readonly event: (state: ReplyState, event: HeldEvent) => ReplyState;
  readonly closeCode: (state: ReplyState) => ReplyState;
}

/** A Markdown heading line (`## 方案 A`). */
const HEADING = /^#{1,6}[ \t]+\S/u;

/** How much of an artifact's text is kept to tell the line it ends with (a heading is seldom longer). */
const TAIL_CHARS = 512;

/**
 * Whether an artifact's text ends right under a heading: what comes next is that section's first line, so a
 * progress line there would read as the section's own words ("## Plan A", "Checking quotas", "Uses ECS").
 */
const endsUnderHeading = (tail: string): boolean => tail.endsWith('\n') && HEADING.test(tail.slice(tail.lastIndexOf('\n', tail.length - 2) + 1, -1));

/**
 * Whether an artifact's first piece is a heading and nothing more (`## 方案 A`): no whole artifact is, so it is
 * a first chunk. A whole artifact that merely ends with a heading (`…\n## Next steps`) is told whole, or the
 * progress after it would wait for words that never come.
 */
const headingAlone = (tail: string): boolean => endsUnderHeading(tail) && tail.indexOf('\n') === tail.length - 1;

/** Whether the reply stands inside the text of an open artifact, where a line of progress would cut it. */
function insideOpenArtifact(state: ReplyState): boolean {
  const { openArtifact, segmentKey, breakPending, unfinishedArtifact } = state;
  const underHeading = unfinishedArtifact?.key === openArtifact && endsUnderHeading(unfinishedArtifact?.tail ?? '');
  const cuts = inCode(state.code) || state.shownLast !== '\n' || underHeading;
  return openArtifact !== undefined && openArtifact === segmentKey && !breakPending && cuts;
}

/** The end of an artifact's text once `event` is shown: its text parts after what came before of it, when appended. */
function textTail(state: ReplyState, event: TaskArtifactUpdateEvent, key: string): string {
  const before = event.append === true && state.unfinishedArtifact?.key === key ? state.unfinishedArtifact.tail : '';
  const text = event.artifact.parts.map((part) => part.text ?? '').join('');
  return (before + text.slice(-TAIL_CHARS)).slice(-TAIL_CHARS);
}

/**
 * How much is held at most, in events and in characters of their text (a file's bytes): past either, what is
 * held is shown and the artifact no longer waited on. An agent that leaves an artifact open mid-line and then
 * streams its answer a token at a time, each in a message of its own, would otherwise have all of it hidden
 * until the turn ends; one that never closes an artifact, every other artifact after it.
 */
export const MAX_HELD_MESSAGES = 64;
export const MAX_HELD_CHARS = 4_000;

const hasRoom = (state: ReplyState): boolean => state.held.length < MAX_HELD_MESSAGES && state.heldChars < MAX_HELD_CHARS;

/** Whether the next chunk of the artifact `key` is among the held events still to be relayed: it streams, and goes on at once. */
const nextChunkQueued = (state: ReplyState, key: string): boolean =>
  state.queued.some(
    (event) => 'artifactUpdate' in event && event.artifactUpdate.append === true && artifactKey(event.artifactUpdate.artifact.artifactId) === key,
  );

/**
 * Whether the open artifact's next chunk is already here (relayed right after): a progress line shown now would
 * stand between two of its chunks, also at a line's end, and showing it first makes it no sooner read.
 */
const goesOnQueued = (state: ReplyState): boolean => state.openArtifact !== undefined && nextChunkQueued(state, state.openArtifact);

/** Whether a status update is an agent's working message (progress), under `single`. */
export const isProgress = (event: TaskStatusUpdateEvent, options: ReplyOptions): boolean =>
  options.replyArtifacts === 'single' && event.status.state === 'TASK_STATE_WORKING' && event.status.message?.role === 'ROLE_AGENT';

/**
 * Whether a status update is a working message to hold until the open artifact's text stops, or behind what
 * waits already (unless it shows that: releasesHeld), while the hold has room.
 */
export function holdsProgress(state: ReplyState, event: TaskStatusUpdateEvent, options: ReplyOptions): boolean {
  if (!isProgress(event, options) || !hasRoom(state)) return false;
  return insideOpenArtifact(state) || goesOnQueued(state) || (state.held.length > 0 && !releasesHeld(state, event, options));
}

/**
 * Whether a working message shows what waits instead of waiting behind it: the waited-on artifact stands at a
 * line's end outside code (so the message would be shown there anyway) and nothing waiting says it streams (a
 * first chunk that says `lastChunk: false`, an appended one), so what is shown cuts no artifact mid-line. An
 * agent that leaves a log artifact open at a line's end (a2a-python's add_artifact without last_chunk) would
 * otherwise have every progress line after another artifact wait until the turn ends or the hold is full.
 */
export function releasesHeld(state: ReplyState, event: TaskStatusUpdateEvent, options: ReplyOptions): boolean {
  if (!isProgress(event, options) || state.held.length === 0 || insideOpenArtifact(state)) return false;
  // What waits to be relayed after this message waits as much as what is held again.
  return [...state.held, ...state.queued].every(
    (held) => !('artifactUpdate' in held) || (held.artifactUpdate.lastChunk !== false && held.artifactUpdate.append !== true),
  );
}

/**
 * Whether an artifact's update goes on beside the artifact waited on instead of waiting for it: the next chunk
 * of an artifact already shown, while the one waited on is a first piece that may be whole (an a2a-js agent's:
 * a progress line or a third artifact told the first was whole, and the second became the one waited on).
 * Held, it would read after the second's later chunks though its start came first; so it is shown where it
 * comes, and tells nothing of the one waited on.
 */
export function goesOnBeside(state: ReplyState, event: TaskArtifactUpdateEvent, options: ReplyOptions): boolean {
  const waitingOn = state.unfinishedArtifact;
  const key = artifactKey(event.artifact.artifactId);
  if (options.replyArtifacts !== 'single' || waitingOn === undefined || waitingOn.known || waitingOn.key === key) return false;
  return event.append === true && state.artifactParts.has(key);
}

/** Whether an artifact's update waits for the unfinished artifact (another's), or behind what waits already, while the hold has room. */
export function holdsArtifact(state: ReplyState, event: TaskArtifactUpdateEvent, options: ReplyOptions): boolean {
  if (options.replyArtifacts !== 'single' || !hasRoom(state) || goesOnBeside(state, event, options)) return false;
  const waitingOn = state.unfinishedArtifact;
  return waitingOn?.key !== artifactKey(event.artifact.artifactId) && (waitingOn !== undefined || state.held.length > 0);
}

/**
 * Whether `event` tells that the unfinished artifact, a first piece that said nothing of its last chunk, was
 * whole: a status, a message, a Task, or a second other artifact's update (the first waits for the tell, and
 * whole artifacts in a row so wait one event each, not until the next status). Not its own update, and not
 * the next chunk of another artifact already shown (goesOnBeside), which says nothing of it. A working message
 * tells only when something waits for the tell: with nothing waiting it is shown where it comes, and an agent
 * that streams artifacts side by side sends progress between their chunks ("Plan A uses ECS\n", "Checking
 * quotas", "Plan B uses SAE\n", "and RDS.\n"): told whole by it, the first piece would let another artifact's
 * start be shown, and its own next words would read under that one's (plan B would seem to use RDS).
 */
function tellsWhole(state: ReplyState, event: StreamResponse, options: ReplyOptions): boolean {
  const waitingOn = state.unfinishedArtifact;
  if (waitingOn === undefined || waitingOn.known) return false;
  if ('statusUpdate' in event) return state.held.length > 0 || !isProgress(event.statusUpdate, options);
  // iac-code's empty `{}` after a permission answer says nothing.
  if (!('artifactUpdate' in event)) return 'task' in event || 'message' in event;
  const update = event.artifactUpdate;
  return waitingOn.key !== artifactKey(update.artifact.artifactId) && state.held.length > 0 && !goesOnBeside(state, update, options);
}

const heldLength = (event: HeldEvent): number => {
  const parts = 'statusUpdate' in event ? (event.statusUpdate.status.message?.parts ?? []) : event.artifactUpdate.artifact.parts;
  // A file's bytes count as its text would; its base64 is a third longer.
  return parts.reduce((sum, part) => sum + (part.text?.length ?? 0) + Math.floor(((part.raw?.length ?? 0) * 3) / 4), 0);
};

/**
 * `event` held. Appended in place, as `segments` grows (state.ts): the reducer is folded in order, never
 * replayed from an older state, and a fresh list starts each hold, so no earlier state's list is changed.
 */
export function holding(state: ReplyState, event: HeldEvent): ReplyState {
  const heldChars = state.heldChars + heldLength(event);
  if (state.held.length === 0) return withState(state, { held: [event], heldChars });
  (state.held as HeldEvent[]).push(event);
  return withState(state, { heldChars });
}

/**
 * The held events, relayed in the order they came (the open artifact is no longer the place to hold them).
 * Working messages are not the artifact's code: a fence it left open (the hold is full, or it ended or broke
 * off in code) is closed first, so they stand on lines of their own, outside its block, read as progress
 * messages are (running-text.ts), not run together as code would be. Relayed, an artifact's update may make it
 * the one waited on, and what came after it wait again. `once` (the artifact waited on stopped at a line's end,
 * or its last chunk came): one pass, and what waits again stays held behind the artifact now unfinished, so a
 * third artifact or a progress line does not cut the second. Otherwise nothing is waited on any more, and what
 * waits again is shown too, so that nothing is left held when the turn ends or a status that is not a working
 * message follows.
 */
export function showHeld(state: ReplyState, show: ShowHeld, once = false): ReplyState {
  let next = state;
  // A relay inside a relay (an artifact relayed stops at a line's end) has the outer relay's rest after its own.
  const after = state.queued;
  while (next.held.length > 0) {
    const { held } = next;
    const cleared = withState(next, { held: [], heldChars: 0, openArtifact: undefined });
    next = show.closeCode(once ? cleared : withFields(cleared, { unfinishedArtifact: undefined }));
    for (const [at, event] of held.entries()) next = show.event(withState(next, { queued: [...held.slice(at + 1), ...after] }), event);
    next = withState(next, { queued: after });
    if (once) break;
  }
  return next;
}

/** `state` no longer waiting on an artifact: what waits is shown (all of it, showHeld). */
export const waitEnded = (state: ReplyState, show: ShowHeld): ReplyState =>
  showHeld(state.unfinishedArtifact === undefined ? state : withState(state, { unfinishedArtifact: undefined }), show);

/** The state before `event`: when it tells the unfinished artifact was whole (tellsWhole), what waited is shown, and it is no longer waited on. */
export const toldWhole = (state: ReplyState, event: StreamResponse, show: ShowHeld, options: ReplyOptions): ReplyState =>
  tellsWhole(state, event, options) ? waitEnded(state, show) : state;

/**
 * Before a status update that is not held: any status but a working message ends the wait for an unfinished
 * artifact (a tool call, a question, the turn's end), also with nothing held yet, and so does a working message
 * that shows what waits (releasesHeld); otherwise what waits is shown only past the hold's bound. A first piece
 * relayed just now that said nothing of its last chunk: the status, after it, tells it was whole.
 */
export function beforeStatus(state: ReplyState, event: TaskStatusUpdateEvent, show: ShowHeld, options: ReplyOptions): ReplyState {
  const ends = !isProgress(event, options) || releasesHeld(state, event, options);
  const relayed = ends ? waitEnded(state, show) : showHeld(state, show);
  // Only a first piece relayed just now is told whole by the status after it; one shown before is told by tellsWhole.
  const toldNow = state.held.length > 0 && relayed.unfinishedArtifact?.known === false;
  return toldNow ? withFields(relayed, { unfinishedArtifact: undefined }) : relayed;
}

/** Before an artifact's update: anything but the next chunk of the artifact waited on shows what was held first, as it came before it. */
export const beforeArtifact = (state: ReplyState, event: TaskArtifactUpdateEvent, show: ShowHeld): ReplyState => {
  const key = artifactKey(event.artifact.artifactId);
  return event.append === true && (state.openArtifact === key || state.unfinishedArtifact?.key === key) ? state : showHeld(state, show);
};

/**
 * Whether an artifact's text left the reply inside a fenced block (not a streamed file's: file-stream.ts):
 * no whole text leaves its fence open, so one that says nothing of its last chunk is a first chunk, and its
 * code goes on in the next.
 */
const leftInCode = (state: ReplyState): boolean =>
  fenceOpen(state.code) !== '' && (state.openFile === undefined || state.openFile.shut || state.openFile.mode === 'binary');

/**
 * Whether the file the artifact `key` streams stops inside a UTF-8 character (file-stream.ts holds its bytes):
 * no whole file does, so its first piece is a first chunk, and a progress line after it would cut the file's
 * block in two, the character's line split between them ("# 专有", then "网络" under the file's name again).
 */
const cutInCharacter = ({ openFile }: ReplyState, key: string): boolean =>
  openFile !== undefined && openFile.key === key && !openFile.shut && openFile.mode === 'text' && openFile.tail.length > 0;

/**
 * After an artifact's update: open while it is streamed (an appended chunk, or one that says `lastChunk:
 * false`) until its last chunk; what was held is shown once the reply is no longer inside it. A whole
 * artifact that says nothing of its last chunk is not open: a first chunk reads so too (an a2a-js agent leaves
 * `lastChunk: false` out), but most such artifacts are whole, and a progress line after one must not wait.
 * It is unfinished, though, until its last chunk: another artifact's updates wait for it (the next event tells).
 */
export function afterArtifact(state: ReplyState, event: TaskArtifactUpdateEvent, show: ShowHeld, options: ReplyOptions): ReplyState {
  const key = artifactKey(event.artifact.artifactId);
  const tail = textTail(state, event, key);
  const inText = !inCode(state.code) && state.shownLast === '\n';
  const goesOn =
    event.append === true || leftInCode(state) || cutInCharacter(state, key) || (inText && headingAlone(tail)) || nextChunkQueued(state, key);
  const streamed = event.lastChunk === false || (event.lastChunk !== true && goesOn);
  const single = options.replyArtifacts === 'single';
  const open = single && streamed ? key : undefined;
  const unfinished = single && event.lastChunk !== true ? { key, known: streamed, tail } : undefined;
  const next = withState(state, { openArtifact: open, unfinishedArtifact: unfinished });
  // Stopped at a line's end while it still streams, or done: what waited is relayed once; what waits again
  // (other artifacts behind the one now unfinished, progress inside it) waits on.
  return insideOpenArtifact(next) ? next : showHeld(next, show, true);
}

import { isDeepStrictEqual } from 'node:util';
import { withFields, type Part, type TaskArtifactUpdateEvent } from '../../../model/index.js';
import type { V025Part, V025StreamEvent } from '../../../protocol/v025/index.js';
import { artifactToV025, defined, joinText, partToV025, withoutCommands } from '../../../translate/index.js';
import { continuesFile, feedFile, openFile } from './file-stream.js';
import { closeFile, replyChunk, showFileOpening, showFilePiece, showText, takeSegment } from './reply-artifact.js';
import { joinFileParts, renderParts, startsLineAfter } from './render-parts.js';
import { addedTo, addedToShown, denseLength, lineStart, repeatsShown, sameText } from './rules.js';
import { artifactKey, type ReplyOptions, type ReplyState, withState } from './state.js';

/**
 * An upstream artifact in the caller's reply. `single`: its content joins the turn's one reply
 * artifact (as text, or its file/data parts as further chunks under `native`). `own`: it is sent with
 * its own identity, its parts rendered as text under `text`. Either way an artifact whose first piece
 * only repeats what was shown (rules.ts) is not sent again.
 */
export function upstreamArtifactEvents(state: ReplyState, event: TaskArtifactUpdateEvent, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const { artifact } = event;
  const key = artifactKey(artifact.artifactId);
  const first = event.append !== true;
  // The artifact sent anew does not go on with the code the facade closed in it (reply-artifact.ts, closeCode).
  if (first && state.closedCode?.key === key) return upstreamArtifactEvents(withState(state, { closedCode: undefined }), event, out, options);
  const before = state.artifactParts.get(key);
  if (first && before !== undefined && sameContent(before, artifact.parts)) return state;
  // Read before remember() adds this chunk's parts to the same list.
  const previousPart = first ? undefined : before?.at(-1);
  remember(state, key, first, artifact.parts);
  if (options.replyArtifacts === 'single') {
    if (options.renderParts === 'text') return withFilesStreamed(state, event, key, before, previousPart, out, options);
    return singleText(state, key, first, before, previousPart, artifact.parts, out, options);
  }
  const rendered = options.renderParts === 'text' ? renderedAfter(previousPart, artifact.parts, options) : undefined;
  const allText = artifact.parts.every((part) => part.text !== undefined);
  const comparable = rendered ?? (allText ? joinText(artifact.parts) : undefined);
  if (first && comparable !== undefined && (repeatsShown(comparable, state, false, true) || sameText(comparable, before && textOf(before, options))))
    return state;
  const translated = artifactToV025(artifact, options.profile);
  const metadata = options.deviceCommandsKey ? withoutCommands(translated.metadata, options.deviceCommandsKey) : translated.metadata;
  out.push(
    defined({
      kind: 'artifact-update' as const,
      taskId: state.taskId,
      contextId: state.contextId,
      artifact: defined(
        withFields(translated, { parts: rendered !== undefined ? [{ kind: 'text' as const, text: rendered }] : translated.parts, metadata }),
      ),
      append: event.append,
      lastChunk: event.lastChunk,
      metadata: options.upstreamMetadata === 'pass' ? event.metadata : undefined,
    }),
  );
  return comparable !== undefined ? takeSegment(state, key, comparable) : state;
}

/** An update's parts as text of the turn's one reply artifact (`single`); under `native` its other parts as chunks of their own. */
function singleText(
  state: ReplyState,
  key: string,
  first: boolean,
  before: readonly Part[] | undefined,
  previousPart: Part | undefined,
  parts: readonly Part[],
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  const rendered = options.renderParts === 'text' ? renderedAfter(previousPart, parts, options) : undefined;
  const text = rendered ?? joinText(parts);
  let next = state;
  const shown = first ? newInWhole(text, key, before && textOf(before, options), state) : { text, state };
  if (shown.text !== '') next = showText(shown.state, shown.text, key, false, out, options);
  const others = rendered === undefined ? parts.filter((part) => part.text === undefined) : [];
  if (others.length > 0) {
    next = withState(next, { replyArtifactId: next.replyArtifactId ?? options.newId(), replyChunks: next.replyChunks + 1 });
    const parts: V025Part[] = others.map((part) => partToV025(part, options.profile));
    const chunk = replyChunk(next, '', false);
    out.push(withFields(chunk, { artifact: withFields(chunk.artifact, { parts }) }));
  }
  return next;
}

/**
 * `single` with parts as text: a file streamed as raw bytes in appended chunks is one file (file-stream.ts).
 * An update whose last part is such a file and that is not its artifact's last chunk opens it; the next
 * chunk of that artifact goes on with it; anything else in an artifact update closes it first.
 */
function withFilesStreamed(
  state: ReplyState,
  event: TaskArtifactUpdateEvent,
  key: string,
  before: readonly Part[] | undefined,
  previousPart: Part | undefined,
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  const parts = joinFileParts(event.artifact.parts);
  const first = event.append !== true;
  const open = state.openFile;
  if (!first && continuesFile(open, key, parts[0])) {
    const piece = feedFile(open, parts[0]!, options);
    const next = showFilePiece(withState(state, { openFile: piece.open }), piece.text, key, piece.opens, out, options);
    if (parts.length === 1 && event.lastChunk !== true) return next;
    const ended = closeFile(next, true, out, options);
    if (parts.length === 1) return ended;
    const rest = withFields(event, { artifact: withFields(event.artifact, { parts: parts.slice(1) }) });
    return withFilesStreamed(ended, rest, key, before, parts[0], out, options);
  }
  // Another artifact's update: the file may go on after it. A rewrite of its own artifact ends it.
  const ready = open === undefined ? state : closeFile(state, open.key === key, out, options);
  const file = parts.at(-1);
  const opens = event.lastChunk !== true && file?.raw !== undefined && (!first || before === undefined);
  if (!opens) return singleText(ready, key, first, before, previousPart, parts, out, options);
  const head = parts.slice(0, -1);
  const opening = openFile(key, file, options);
  const afterPart = head.at(-1) ?? previousPart;
  const text =
    renderedAfter(previousPart, head, options) + (opening.text !== '' && startsLineAfter(afterPart, file, options) ? '\n' : '') + opening.text;
  // A first piece that repeats what was shown (or restates it) is read as a whole artifact is.
  if (first && newInWhole(text, key, undefined, ready).text !== text) return singleText(ready, key, first, before, previousPart, parts, out, options);
  return showFileOpening(withState(ready, { openFile: opening.open }), text, text.length - opening.text.length, key, out, options);
}

/** The artifact's parts as a reader holds them after this update (the turn's map is shared: see ReplyState). */
function remember(state: ReplyState, key: string, whole: boolean, parts: readonly Part[]): void {
  const held = state.artifactParts as Map<string, Part[]>;
  const known = held.get(key);
  // Appended in place: a long artifact comes in thousands of chunks.
  if (whole || known === undefined) held.set(key, [...parts]);
  else known.push(...parts);
}

/** What parts hold, however they are cut: a file sent in chunks, then whole in the closing Task, holds the same. */
const contentOf = (parts: readonly Part[]): string =>
  parts
    .map((part) => part.text ?? part.url ?? (part.raw !== undefined ? Buffer.from(part.raw, 'base64').toString('latin1') : JSON.stringify(part.data)))
    .join('');

const sameContent = (before: readonly Part[], parts: readonly Part[]): boolean =>
  isDeepStrictEqual(before, parts) || contentOf(before) === contentOf(parts);

/** A chunk's parts as text, laid out after the part the artifact ended with as one artifact's parts are (render-parts.ts). */
function renderedAfter(previous: Part | undefined, parts: readonly Part[], options: ReplyOptions): string {
  const text = renderParts(parts, options);
  return text !== '' && !text.startsWith('\n') && startsLineAfter(previous, parts[0], options) ? `\n${text}` : text;
}

const textOf = (parts: readonly Part[], options: ReplyOptions): string =>
  options.renderParts === 'text' ? renderParts(parts, options) : joinText(parts);

/**
 * What a whole artifact (not an appended chunk) adds to the reply: nothing when it repeats it or says what
 * the artifact said before (`before`, when the turn showed it); when it is that artifact grown, only what it
 * adds (on a line of its own unless it goes on where the artifact left off); when it restates the reply,
 * what follows that; else all of it, and a rewrite of an artifact shown before on a new line (sent text
 * cannot be taken back).
 */
function newInWhole(text: string, key: string, before: string | undefined, state: ReplyState): { text: string; state: ReplyState } {
  if (text === '' || repeatsShown(text, state, false, true) || sameText(text, before)) return { text: '', state };
  const goesOn = key === state.segmentKey && !state.breakPending;
  const grown = before === undefined ? undefined : addedTo(before, denseLength(before), text);
  if (grown !== undefined) return { text: goesOn ? grown : lineStart(grown), state };
  const added = addedToShown(text, state);
  if (added !== undefined) return { text: lineStart(added), state: goesOn ? withState(state, { breakPending: true }) : state };
  return { text, state: goesOn ? withState(state, { breakPending: true }) : state };
}

/**
 * A snapshot holds every artifact of the task, its earlier turns' too (a non-streaming agent returns them
 * all): one of them grown shows what this turn added (artifacts.ts). Only for a snapshot: an agent that
 * streams an artifact of an earlier turn's id again says it anew.
 */
export function knowEarlierArtifacts(state: ReplyState, options: ReplyOptions): void {
  const known = state.artifactParts as Map<string, readonly Part[]>;
  for (const artifact of options.earlierArtifacts ?? []) {
    const key = artifactKey(artifact.artifactId);
    if (!known.has(key)) known.set(key, [...artifact.parts]);
  }
}

import { isAssistantFinal } from '../../../upstream/iac-code/events.js';
import { isExplainedState, withFields, type Message, type TaskState } from '../../../model/index.js';
import type { JsonObject } from '../../../translate/common.js';
import { denseLength, isWhiteSpaceCode, sameDense } from './dense-text.js';
import { firstPieceFrom } from './pieces.js';
import { restatesAroundOthers } from './restated-around.js';
import { ENDS_CJK_SENTENCE, ENDS_SENTENCE, SPACE } from './running-text.js';
import { shownCharAt, shownSlice } from './shown-tail.js';
import { isArtifactKey, type ReplyState } from './state.js';

/**
 * The named rules that decide what of an agent's output is NEW to the person reading the reply.
 * Each recognises one known way agents repeat themselves; anything they do not recognise is shown.
 */

/**
 * iac-code: the `assistantFinal` update repeats the text after the last tool call, which was already
 * streamed as chunks. When nothing was streamed, it is the answer and is shown.
 */
export function isIacCodeFinalRepeat(text: string, metadata: JsonObject | undefined, state: ReplyState): boolean {
  if (!isAssistantFinal(metadata)) return false;
  const said = text.trim();
  // The reply's end from its tail (shown-tail.ts) when that holds all `said` could match; the whole reply otherwise.
  const end = state.shownTail.trimEnd();
  const shown = (end !== '' && end.length >= said.length) || state.shownTail.length === state.shown.length ? end : state.shown.trimEnd();
  return shown !== '' && shown.endsWith(said);
}

const WHITE_SPACE = /\s+/g;

/** The least of a reply, in characters that are not white space, that a message may restate before what it adds. */
export const MIN_RESTATED = 8;

/** How many characters of `text` are not white space (dense-text.ts). */
export { denseLength };

/** The first character of `text` from `from` on that is not white space ('' when none). */
function firstDense(text: string, from = 0): string {
  for (let at = from; at < text.length; at++) if (!isWhiteSpaceCode(text.charCodeAt(at))) return text.charAt(at);
  return '';
}

/**
 * Whether `candidate` says what the reply says from the start of one of its pieces to its end (at least
 * `fewestPieces` of them), white space aside: an agent that streamed its answer in pieces and sends it whole
 * again lays it out its own way, and may have said something before it (a progress line). Compared only
 * when the count of its characters says it could be equal.
 */
function sameAsTail(candidate: string, state: ReplyState, fewestPieces: number): boolean {
  const start = state.shownDense - denseLength(candidate);
  if (start < 0) return false;
  const { pieces } = state;
  const first = firstPieceFrom(pieces, start);
  if (pieces.dense[first] !== start || pieces.dense.length - first < fewestPieces) return false;
  const at = pieces.at[first] ?? state.shown.length;
  return sameDense(shownSlice(state, at), candidate);
}

/** Whether two texts say the same, white space aside (false when there is nothing to compare with). */
export const sameText = (text: string, other: string | undefined): boolean => other !== undefined && sameDense(text, other);

/**
 * A message's segment starts a fresh `sinceMessage` (reply-artifact.ts, segmentTaking): words after a result
 * make it no longer what the user read last. A message of a file or a data part alone says no words (`words`
 * false; a permission prompt the facade words does): the set it started is dropped and the one before it kept,
 * so a closing message that says the result again after it is still a repeat, as after an artifact's file.
 */
export const sinceWords = (after: ReplyState, before: ReplyState, words: boolean): ReplyState =>
  words || after.sinceMessage === before.sinceMessage ? after : withFields(after, { sinceMessage: before.sinceMessage });

/** Whether a message says words: a text part with a letter or a digit in it. */
export const saysWords = (message: Message | undefined): boolean => message?.parts.some((part) => WORDS.test(part.text ?? '')) === true;
const WORDS = /[\p{L}\p{N}]/u;

/**
 * Any agent: a whole message or a whole artifact whose text equals the reply shown so far or its last pieces
 * (from the start of one of them), or one message or artifact of it (an agent that streams its answer, then
 * sends it again as an artifact or as the final status message; for a message, one that no message's words
 * followed: said again after other words, it is what the user should read last), or, for a message, the reply's last sentences
 * (an artifact's last sentence asked again as the question that ends the turn). A working message (`flowing`) is a piece of
 * the agent's running text, which may well say a word or a sentence it said before: it repeats only the last
 * pieces of the reply, when they are more than one and more than a word or two.
 */
export function repeatsShown(text: string, state: ReplyState, flowing = false, artifact = false): boolean {
  const candidate = text.trim();
  // White space alone is running text's (the blank between two words); a whole message of it says nothing.
  if (candidate === '') return !flowing && state.shown !== '';
  if (flowing) return denseLength(candidate) >= MIN_RESTATED && sameAsTail(candidate, state, 2);
  if (artifact && onlyAnotherArtifactSaid(candidate, state)) return false;
  if (sameAsTail(candidate, state, 1) || candidate === state.segmentText.trim()) return true;
  // An earlier segment: for a message, only one no message's words came after (iac-code's text, then the file it
  // wrote, then its assistantFinal). After other words ("Result: PASS", "Next check.") the agent says it again, last.
  if (artifact ? state.segments.has(candidate) : state.sinceMessage.has(candidate)) return true;
  // The answer's text gathered whole, without the files and progress lines sent between its pieces.
  if (restatesAroundOthers(candidate, state, MIN_RESTATED)) return true;
  // Only after an artifact's chunks: after messages a closing message that ends like the last one is said anew (a failure's reason).
  return !artifact && isArtifactKey(state.segmentKey) && endsWithSentences(candidate, state);
}

/**
 * Whether the reply ends with `candidate` from the start of one of its sentences (white space aside; at least
 * 8 such characters): an agent that streamed its answer as an artifact's chunks, then asks its last sentence
 * again as the question that ends the turn ("I can deploy it. Which region should I use?", then "Which region
 * should I use?"). Streamed as messages of their own, the question started a piece of the reply, which
 * `sameAsTail` finds; an artifact's chunks are one piece. Read back from the reply's end, so only as far as
 * the candidate goes.
 */
function endsWithSentences(candidate: string, state: ReplyState): boolean {
  if (denseLength(candidate) < MIN_RESTATED) return false;
  const shown = (index: number): string => shownCharAt(state, index);
  let at = state.shown.length;
  for (let left = candidate.length - 1; left >= 0; left--) {
    const char = candidate.charAt(left);
    if (SPACE.test(char)) continue;
    while (at > 0 && SPACE.test(shown(at - 1))) at--;
    if (at === 0 || shown(at - 1) !== char) return false;
    at--;
  }
  return at === 0 || startsSentence(shown, at);
}

/**
 * A new artifact that holds what another artifact held, and no message said: two results that read the same
 * (two checks that each passed), not the agent saying one thing again.
 */
function onlyAnotherArtifactSaid(candidate: string, state: ReplyState): boolean {
  const current = candidate === state.segmentText.trim() ? (isArtifactKey(state.segmentKey) ? 'artifact' : 'message') : undefined;
  const finished = state.segments.get(candidate);
  const sources = [current, finished].filter((source) => source !== undefined);
  return sources.length > 0 && sources.every((source) => source === 'artifact');
}

/**
 * What `text` adds when it first restates all of `base`, white space aside: the rest of it, without the
 * blanks `base` already ended with ("SDK " then "SDK echo" adds "echo"), or undefined when it does not (or
 * adds nothing). An agent may send its streamed answer again, whole, with a question after it; stream its
 * text as messages that each hold all of it so far; or send an artifact again, whole, grown.
 */
export function addedTo(base: string, baseDense: number, text: string): string | undefined {
  if (baseDense === 0 || denseLength(text) <= baseDense) return undefined;
  const added = afterDense(base.replace(WHITE_SPACE, ''), text);
  if (added === undefined) return undefined;
  let blanks = base.length;
  while (blanks > 0 && SPACE.test(base.charAt(blanks - 1))) blanks--;
  let shown = 0;
  while (blanks + shown < base.length && added.charAt(shown) === base.charAt(blanks + shown)) shown++;
  return added.slice(shown);
}

/** What `text` says after `dense` (a text without its white space), when it says all of that first. */
function afterDense(dense: string, text: string): string | undefined {
  let seen = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text.charAt(at);
    if (SPACE.test(char)) continue;
    if (char !== dense.charAt(seen)) return undefined;
    if (++seen === dense.length) return text.slice(at + 1);
  }
  return undefined;
}

/**
 * Whether what a message adds after restating the reply finishes the reply's last sentence: the restated
 * text stops mid-sentence, or mid-word ("The answer is 42" then "The answer is 42."). The rest of that
 * sentence goes on as the agent wrote it; a line break there would split its word or sentence. After a
 * sentence's end, what it adds (a question after the answer) starts a line of its own.
 */
export function finishesSentence(state: ReplyState): boolean {
  let at = state.shown.length - 1;
  while (at >= 0 && SPACE.test(shownCharAt(state, at))) at--;
  const last = shownCharAt(state, at);
  return last !== '' && !state.breakPending && !ENDS_SENTENCE.test(last) && !ENDS_CJK_SENTENCE.test(last);
}

/** `added` after the blanks the reply already ends with, so that a sentence it finishes has no blank twice. */
export function afterShownBlanks(state: ReplyState, added: string): string {
  const { length } = state.shown;
  let blanks = length;
  while (blanks > 0 && SPACE.test(shownCharAt(state, blanks - 1))) blanks--;
  let skip = 0;
  while (blanks + skip < length && added.charAt(skip) === shownCharAt(state, blanks + skip)) skip++;
  return added.slice(skip);
}

/** Text that goes on a line of its own, without the blanks and line breaks that joined it to what it followed. */
export const lineStart = (text: string): string => text.replace(/^\s+/, '');

/** A Markdown heading with two letters or digits in it (`## 部署`). */
const HEADING_LINE = /^#{1,6}[ \t]+[^\n]*?[\p{L}\p{N}][^\n]*?[\p{L}\p{N}]/u;

/**
 * Whether the reply from `at` on is a heading a message may restate although it is shorter than MIN_RESTATED
 * (`## 部署`, then `## 部署方案` and more: a Chinese heading is short): the minimum keeps a model's word said
 * twice (`ha` + `haha`, `1` + `1.5`) and a short line an agent writes twice, but no model's token, and no
 * agent's line, opens the same heading again right after it.
 */
function restatesHeading(state: ReplyState, at: number): boolean {
  // A piece may open with the blanks of a model's first token (`\n\n## 部署方案`): the heading is after them.
  const read = shownSlice(state, at, at + 96);
  const lead = read.length - read.trimStart().length;
  const start = at + lead;
  return (start === 0 || shownCharAt(state, start - 1) === '\n') && HEADING_LINE.test(read.slice(lead));
}

/**
 * What `text` adds when it first restates the reply's last pieces, from the start of one of them (the
 * earliest that it restates, and more than a word or two, or a heading: restatesHeading): the answer sent
 * again with a question after it, also when a progress line came before the answer.
 */
export function addedToShown(text: string, state: ReplyState): string | undefined {
  const { pieces, shownDense } = state;
  const first = firstDense(text);
  // The reply from the first piece that could be restated on, stripped once and only then: what `text` could
  // restate is no longer than it, and the reply before it may be thousands of tokens (shown-tail.ts).
  let denseShown: { start: number; text: string } | undefined;
  for (let piece = firstPieceFrom(pieces, shownDense - denseLength(text) + 1); piece < pieces.dense.length; piece++) {
    const start = pieces.dense[piece] ?? shownDense;
    const at = pieces.at[piece] ?? state.shown.length;
    if (shownDense - start < MIN_RESTATED && !restatesHeading(state, at)) continue;
    if (firstDense(shownSlice(state, at)) !== first) continue;
    denseShown ??= { start, text: shownSlice(state, at).replace(WHITE_SPACE, '') };
    const added = afterDense(denseShown.text.slice(start - denseShown.start), text);
    if (added !== undefined) return added;
  }
  return undefined;
}

/** The least of the running message's last sentences, in characters that are not white space, a closing message may restate. */
const MIN_END_RESTATED = 4;

/**
 * What a message that ends the turn under the id of the running text adds when it first says that message
 * again (`state.segmentText`, the text under that id since its segment began): all of it, however short
 * (the same id says it is the same message: an agent that streams its reply under one id and closes with
 * it whole), or its last sentences, from the start of one of them (at least 4 such characters: an agent
 * that closes with its answer, the text after its progress, again). The longest such restatement; '' when
 * the message adds nothing to it; undefined when it does not start so.
 */
export function addedToRunning(text: string, state: ReplyState): string | undefined {
  const running = state.segmentText;
  const runningAt = (index: number): string => running.charAt(index);
  const textDense = denseLength(text);
  const first = firstDense(text);
  const total = denseLength(running);
  let before = 0;
  for (let at = 0; at < running.length; at++) {
    const char = running.charAt(at);
    if (SPACE.test(char)) continue;
    const tail = total - before;
    const whole = before++ === 0;
    if (!whole && !startsSentence(runningAt, at)) continue;
    if (!whole && tail < MIN_END_RESTATED) break;
    if (tail > textDense || char !== first) continue;
    const added = afterDense(running.slice(at).replace(WHITE_SPACE, ''), text);
    if (added !== undefined) return added.trim() === '' ? '' : added;
  }
  return undefined;
}

/**
 * Whether a sentence starts at `at` (a character that is not white space): after a line break, or a sentence's end.
 * `charAt` reads the text, which for the reply is its tail as far as that goes (shown-tail.ts).
 */
function startsSentence(charAt: (index: number) => string, at: number): boolean {
  let before = at - 1;
  while (before >= 0 && SPACE.test(charAt(before)) && charAt(before) !== '\n') before--;
  const char = before >= 0 ? charAt(before) : '';
  // A Latin sentence ends with a blank after it ("1.5" is a number); a Chinese or Japanese one needs none.
  return char === '\n' || ENDS_CJK_SENTENCE.test(char) || (before < at - 1 && ENDS_SENTENCE.test(char));
}

/** Whether text under `key` continues the current segment, or starts a new one. */
export const startsSegment = (key: string, state: ReplyState): boolean => key !== state.segmentKey || state.breakPending;

/**
 * States whose status message is the agent's ANSWER. In the others (model/task.ts: failure, cancellation,
 * rejection, an auth prompt, no state) the message explains the state: a plain 0.2.5 caller finds it on
 * the status, Bailian (which reads artifacts only) in the reply.
 */
export const isAnswerState = (state: TaskState): boolean => !isExplainedState(state);

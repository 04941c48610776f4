import { isDeepStrictEqual } from 'node:util';
import { withFields, type Message, type Part } from '../../model/index.js';

/**
 * A history too long for the record (`tasks.history-limit`) with each run of one agent message's chunks merged into
 * one message first, so a long reply keeps its words instead of its last chunks only.
 *
 * An agent streaming its reply token by token under one messageId (an LLM-backed a2a-js 1.x agent) sends hundreds of
 * status messages, which the fold records one each (fold.ts): cut to its last messages, the record lost the reply's
 * start, and with it the first chunk, the one message of that id the agent's own store keeps (chunk-runs.ts), so the
 * record could no longer put the chunks back and a GetTask read the reply as its first chunk. Merged, a run is one
 * message that begins as that first chunk does and reads as a client reads the chunks: where one chunk's last part
 * and the next one's first are plain text of one media type, their texts are joined with no separator (as the
 * facade joins chunks, and a message's parts), every other part kept as it was, in order. Its other fields are its
 * first chunk's. Only when the history is past the limit, so the record of a task within it
 * keeps every chunk as the stream carried it; the walk is as long as the cut's copy, and a run is merged again only
 * when the record is full again, joined with the chunks that came since: a turn's run stays one message. Undefined
 * when the history holds no run.
 */
export function withRunsMerged(history: readonly Message[]): Message[] | undefined {
  if (!holdsRun(history)) return undefined;
  const merged: Message[] = [];
  let start = 0;
  history.forEach((message, at) => {
    if (at === 0 || continuesRun(message, history[at - 1])) return;
    merged.push(mergedRun(history, start, at));
    start = at;
  });
  merged.push(mergedRun(history, start, history.length));
  return merged;
}

/**
 * Whether `whole` begins as `first` does: the same id and role, `first`'s parts its first ones but for the last,
 * whose text `whole`'s part there may go on (a run merged, withRunsMerged, after its first chunk).
 */
export function beginsWith(whole: Message, first: Message): boolean {
  const { parts } = first;
  if (whole.messageId !== first.messageId || whole.role !== first.role || whole.parts.length < parts.length) return false;
  const last = parts.length - 1;
  for (let at = 0; at < last; at++) if (!isDeepStrictEqual(whole.parts[at], parts[at])) return false;
  const [kept, given] = [whole.parts[last]!, parts[last]!];
  return isDeepStrictEqual(kept, given) || (joinable(kept, given) && kept.text!.startsWith(given.text!));
}

/** Whether two messages of `history`, one after the other, are chunks of one agent message. */
export const holdsRun = (history: readonly Message[]): boolean => history.some((message, at) => continuesRun(message, history[at - 1]));

/** One chunk more of the agent's message before it: a run of one id (empty ids run nowhere). */
export const continuesRun = (message: Message, before: Message | undefined): boolean =>
  message.role === 'ROLE_AGENT' && before?.role === 'ROLE_AGENT' && before.messageId === message.messageId && message.messageId !== '';

/** history[start, end) as one message: itself when it is one. */
function mergedRun(history: readonly Message[], start: number, end: number): Message {
  const first = history[start]!;
  if (end - start === 1) return first;
  const parts: Part[] = [];
  // The texts of the text part being joined, joined once it ends.
  let texts: string[] = [];
  const flush = () => {
    if (texts.length > 1) parts[parts.length - 1] = withFields(parts.at(-1), { text: texts.join('') });
    texts = [];
  };
  for (let at = start; at < end; at++) {
    history[at]!.parts.forEach((part, index) => {
      // A chunk's own parts stay apart, as its message had them: only where one chunk meets the next is text joined.
      if (index === 0 && texts.length > 0 && joinable(parts.at(-1)!, part)) {
        texts.push(part.text!);
        return;
      }
      flush();
      parts.push(part);
      if (plainText(part)) texts.push(part.text!);
    });
  }
  flush();
  return withFields(first, { parts });
}

/** A text part that says nothing but its text (and its media type): one that names a file or carries metadata stays whole. */
const plainText = (part: Part): boolean =>
  part.text !== undefined && Object.entries(part).every(([key, value]) => key === 'text' || key === 'mediaType' || value === undefined);

/** Two text parts a reader joins: plain text of one media type. */
const joinable = (a: Part, b: Part): boolean => plainText(a) && plainText(b) && a.mediaType === b.mediaType;

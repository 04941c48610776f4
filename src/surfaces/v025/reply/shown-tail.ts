import { LONGEST_WORD } from './names-in-text.js';
import type { ReplyState } from './state.js';

/**
 * The end of the reply, kept beside `shown` (ReplyState.shownTail). `shown` is built by appending, which V8
 * keeps as a rope, and reading one character of a rope copies the whole of it into one string: a rule that
 * reads the reply's end once per message made an agent that sends each token as a message of its own
 * (a2a-python's `new_agent_text_message` per chunk) quadratic in the reply's length. The rules read the end
 * from this tail, a short string, and `shown` itself only where they must reach further back.
 */

/** How much of the reply's end is kept: more than the longest last word names-in-text.ts reads, and a heading's line. */
export const TAIL_LENGTH = 2 * LONGEST_WORD;

type Shown = Pick<ReplyState, 'shown' | 'shownTail'>;

/** The tail once `text` is shown after it. */
export function grownTail(tail: string, text: string): string {
  if (text.length >= TAIL_LENGTH) return text.slice(-TAIL_LENGTH);
  const grown = tail + text;
  return grown.length > TAIL_LENGTH ? grown.slice(-TAIL_LENGTH) : grown;
}

/** Where the tail starts in `shown`. */
const tailStart = (state: Shown): number => state.shown.length - state.shownTail.length;

/** The shown text's character at `at` ('' outside it), read from the tail when the tail holds it. */
export function shownCharAt(state: Shown, at: number): string {
  const start = tailStart(state);
  return at >= start ? state.shownTail.charAt(at - start) : state.shown.charAt(at);
}

/** The shown text from `from` to `to` (its end by default), read from the tail when the tail holds it. */
export function shownSlice(state: Shown, from: number, to = state.shown.length): string {
  const start = tailStart(state);
  return from >= start ? state.shownTail.slice(from - start, Math.max(0, to - start)) : state.shown.slice(from, to);
}

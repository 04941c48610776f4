import {
  addedTo,
  addedToRunning,
  addedToShown,
  afterShownBlanks,
  denseLength,
  finishesSentence,
  lineStart,
  MIN_RESTATED,
  sameText,
} from './rules.js';
import { isWhiteSpaceCode } from './dense-text.js';
import type { ReplyState } from './state.js';

/**
 * "Restated, then more" (rules.ts) for an agent's status message: what of it is shown when it first says again
 * what the reply shows, and where that goes.
 */

/** How the message stands to the reply: it starts a segment, is running text (a working message), closes the running text's id. */
export interface MessageStanding {
  readonly fresh: boolean;
  readonly flows: boolean;
  readonly closesRunning: boolean;
  /** The agent's message before this one that said any (ReplyState.messageText). */
  readonly previous: string;
}

/**
 * What a message shows past what it restates (`text` '' when it adds nothing), and whether that finishes the
 * sentence the restated text broke off in (it then goes on in the current segment); undefined when it restates
 * nothing. Running text goes on from the reply as it stands: what the reply already ends with (the line break
 * after a table row, the blank after a word) is not said twice, or messages that each hold the whole text so
 * far would read a blank line after every line. Other added text starts a line of its own, but the rest of a
 * sentence or a word.
 */
export function restatement(text: string, state: ReplyState, standing: MessageStanding): { text: string; finishing: boolean } | undefined {
  const { fresh, flows, closesRunning, previous } = standing;
  if (!fresh) {
    const grown = flows ? (addedToMessage(text, state) ?? addedToVersion(text, previous, state.segmentText)) : undefined;
    return grown === undefined ? undefined : { text: grown, finishing: false };
  }
  const added =
    addedToShown(text, state) ?? (closesRunning ? (addedToRunning(text, state) ?? addedToVersion(text, previous, state.segmentText)) : undefined);
  if (added === undefined) return undefined;
  if (added === '') return { text: '', finishing: false };
  const finishing = !flows && finishesSentence(state);
  return { text: flows || finishing ? afterShownBlanks(state, added) : lineStart(added), finishing };
}

/**
 * What a working message under the id of the current segment adds when it first says all of that segment again
 * (more than a word or two): an agent that updates one message in place as it grows (`The stack vpc-demo w`,
 * then `The stack vpc-demo was created…`, under one id) sends the whole message each time, and its words were
 * read once. '' when it says the segment again and nothing more. Agents that stream deltas under one id
 * (iac-code) never open a chunk with all they said since the segment began.
 */
function addedToMessage(text: string, state: ReplyState): string | undefined {
  const segment = state.segmentText;
  // A delta (every token of iac-code's answer) is far shorter than what it goes on from: told by the lengths
  // alone, since reading the segment (a string built by appending) flattens it, the reply's length per token.
  // Messages that hold the whole text so far repeat its white space too, so a quarter is room to spare.
  if (4 * text.length < segment.length || !opensWithAll(text, segment)) return undefined;
  const dense = denseLength(segment);
  if (dense < MIN_RESTATED) return undefined;
  return sameText(text, segment) ? '' : addedTo(segment, dense, text);
}

/**
 * What a message under the running text's id adds to the message before it when it first says all of that one
 * again (more than a word or two): a message grown in place whose first version was too short to tell from a
 * delta said twice (`Hello w`, then `Hello world, t`) went on as running text, so its segment no longer opens
 * as the message does, but each later version still says the one before it whole. Only while the segment is
 * such versions (an earlier one, then the one before this, which said it all again): deltas under one id that
 * flush whole lines, one opening as the line before it (`- 创建专有网络`, `- 创建专有网络 vpc-1 成功`), stay as
 * they came. '' when it adds nothing.
 */
function addedToVersion(text: string, previous: string, segment: string): string | undefined {
  const dense = denseLength(previous);
  if (dense < MIN_RESTATED) return undefined;
  const added = sameText(text, previous) ? '' : addedTo(previous, dense, text);
  if (added === undefined) return undefined;
  const said = segment.replace(WHITE_SPACE, '');
  const last = previous.replace(WHITE_SPACE, '');
  return said.endsWith(last) && last.startsWith(said.slice(0, said.length - last.length)) ? added : undefined;
}

const WHITE_SPACE = /\s+/g;

/** Whether `text` says every character of `segment` first that is not white space, in order, white space aside. */
function opensWithAll(text: string, segment: string): boolean {
  let at = 0;
  for (let from = 0; from < segment.length; from++) {
    const expected = segment.charCodeAt(from);
    if (isWhiteSpaceCode(expected)) continue;
    while (at < text.length && isWhiteSpaceCode(text.charCodeAt(at))) at++;
    if (text.charCodeAt(at) !== expected) return false;
    at++;
  }
  return true;
}

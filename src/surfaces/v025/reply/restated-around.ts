import { shownCharAt, shownSlice } from './shown-tail.js';
import type { ReplyState } from './state.js';

const WHITE_SPACE = /\s+/g;

/**
 * How many pieces a restatement may leave out: a Task's files, a few progress lines. So an artifact compared
 * with a reply of many artifacts before it is not compared with each of them, per artifact.
 */
const MAX_LEFT_OUT = 64;

/** Whether the reply's text at `at` starts a line of its own. */
const startsLine = (state: ReplyState, at: number): boolean => at === 0 || shownCharAt(state, at - 1) === '\n';

/**
 * Whether `candidate` says again the reply's last pieces (pieces.ts) with some lines between them left out,
 * white space aside: an agent that gathers the text it streams and sends it whole at the end, without the
 * files and progress lines it sent between (a template a tool wrote, "Validating template"), as the text
 * stream of a model that called tools is. It must end with the reply's last piece of words (only artifacts
 * after it: a Task, replayed, holds its files after its messages; words after it make it no longer what the
 * user read last), say at least two pieces whole, and `least` characters that are not white space; a piece
 * left out between them stands on lines of its own, so a word left out of a sentence is no restatement. Read
 * back from the reply's end, a piece at a time.
 */
export function restatesAroundOthers(candidate: string, state: ReplyState, least: number): boolean {
  let rest = candidate.replace(WHITE_SPACE, '');
  if (rest.length < least) return false;
  const { at: starts, dense } = state.pieces;
  let [said, leftOut, end, endDense] = [0, 0, state.shown.length, state.shownDense];
  // Where the run of pieces left out that the walk is in ends (-1: not in one).
  let runEnd = -1;
  for (let piece = starts.length - 1; piece >= 0 && rest !== '' && leftOut <= MAX_LEFT_OUT; piece--) {
    const at = starts[piece] ?? 0;
    // A piece longer than what is left to say is not read (a file's may be large).
    const fits = endDense - (dense[piece] ?? 0) <= rest.length;
    const text = fits ? shownSlice(state, at, end).replace(WHITE_SPACE, '') : '';
    if (text !== '' && rest.endsWith(text)) {
      if (runEnd >= 0 && !(startsLine(state, end) && startsLine(state, runEnd))) return false;
      rest = rest.slice(0, rest.length - text.length);
      [said, runEnd] = [said + 1, -1];
    } else {
      // After the words it says again, only artifacts: as a Task replays a turn, its files after its messages.
      if (said === 0 && state.pieces.artifact[piece] !== true) return false;
      if (said > 0 && runEnd < 0) runEnd = end;
      leftOut++;
    }
    [end, endDense] = [at, dense[piece] ?? 0];
  }
  return rest === '' && said >= 2 && leftOut > 0;
}

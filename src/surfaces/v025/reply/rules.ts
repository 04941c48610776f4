import { isAssistantFinal } from '../../../upstream/iac-code/events.js';
import type { TaskState } from '../../../model/index.js';
import type { JsonObject } from '../../../translate/common.js';
import type { ReplyState } from './state.js';

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
  const shown = state.shown.trimEnd();
  return shown !== '' && shown.endsWith(text.trim());
}

/**
 * Any agent: a whole message or a whole artifact whose text equals the reply shown so far, or one
 * message or artifact of it (an agent that streams its answer, then sends it again as an artifact or
 * as the final status message).
 */
export function repeatsShown(text: string, state: ReplyState): boolean {
  const candidate = text.trim();
  if (candidate === '') return false;
  // The whole reply is compared only when its length says it could be equal.
  const wholeReply = candidate.length === state.shownCore && candidate === state.shown.trim();
  return wholeReply || candidate === state.segmentText.trim() || state.segments.has(candidate);
}

/** Whether text under `key` continues the current segment, or starts a new one. */
export const startsSegment = (key: string, state: ReplyState): boolean => key !== state.segmentKey || state.breakPending;

/** A new segment after shown text starts on a new line, so two messages' sentences do not run together. */
export function separatorBefore(text: string, state: ReplyState): string {
  if (state.shown === '' || state.shownEndsLine || text.startsWith('\n')) return '';
  return '\n';
}

/**
 * States whose status message is the agent's ANSWER. In the others (failure, cancellation,
 * rejection, an auth prompt, no state) the message explains the state: a plain 0.2.5 caller finds it
 * on the status, Bailian (which reads artifacts only) in the reply.
 */
const NON_ANSWER_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_UNSPECIFIED',
]);
export const isAnswerState = (state: TaskState): boolean => !NON_ANSWER_STATES.has(state);

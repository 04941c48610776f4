import type { Message, Task, TaskState } from '../model/index.js';
import { hasTextPart, isRecord, joinText, type JsonObject } from './common.js';

/**
 * States whose status message is the agent's ANSWER (it belongs in the reply text). In the others
 * (failures, cancellation, rejection, auth prompts, no state) the message explains the state and stays
 * on the status.
 */
const NON_REPLY_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_UNSPECIFIED',
]);
export const isReplyState = (state: TaskState): boolean => !NON_REPLY_STATES.has(state);

/** iac-code marks the authoritative end-of-turn text with `metadata.iac_code.assistantFinal`. */
export function isAssistantFinal(metadata: JsonObject | undefined): boolean {
  const iacCode = metadata?.iac_code;
  return isRecord(iacCode) && iacCode.assistantFinal !== undefined && iacCode.assistantFinal !== false;
}

/** The text of an agent message, or '' for user echoes and messages without text. */
export function agentText(message: Message | undefined): string {
  return message && message.role === 'ROLE_AGENT' ? joinText(message.parts) : '';
}

/**
 * The reply text of a task's last turn, ONCE. iac-code's history holds every chunk (all sharing one
 * messageId) AND the final aggregate (its own messageId), so concatenating the history would double
 * the answer. Rule: a reply-state status message wins; otherwise take the last agent message of the
 * last turn; if it ends a run of chunks sharing its messageId there was no aggregate, so join the run.
 */
export function finalReplyText(task: Task): string {
  const statusText = agentText(task.status.message);
  if (statusText !== '' && isReplyState(task.status.state)) return statusText;
  const history = task.history ?? [];
  let turnStart = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]?.role === 'ROLE_USER') {
      turnStart = i + 1;
      break;
    }
  }
  const replies = history.slice(turnStart).filter((message) => message.role === 'ROLE_AGENT' && hasTextPart(message.parts));
  const last = replies.at(-1);
  if (!last) return '';
  let runStart = replies.length - 1;
  while (runStart > 0 && replies[runStart - 1]?.messageId === last.messageId) runStart--;
  return replies
    .slice(runStart)
    .map((message) => joinText(message.parts))
    .join('');
}

/**
 * Whether an upstream artifact only repeats the turn's reply text: text parts only, joined exactly to
 * `reply`. Bailian shows the text of every artifact, so the facade, which already delivers the reply
 * as its own text artifact, must not send such an artifact again (the demo agent's `reply.txt`, an
 * a2a-js agent's reply artifact). Anything else (files, data, other text) is real output and stays.
 */
export function repeatsReply(parts: readonly { text?: unknown }[], reply: string): boolean {
  return reply !== '' && parts.length > 0 && parts.every((part) => typeof part.text === 'string') && joinText(parts) === reply;
}

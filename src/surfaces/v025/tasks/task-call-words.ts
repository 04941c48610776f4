import { A2AError, ErrorCode, type Task } from '../../../model/index.js';
import type { V025FacadeDeps } from '../deps.js';
import type { ConversationLanguages } from '../notes/conversation-languages.js';
import { toldInWords } from '../errors.js';
import { promptWaitedOn } from '../turn/permission-answers.js';
import { isGatewayFailure, type FacadeWords } from '../reply/index.js';
import { turnLanguageOf, wordsIn } from '../reply-options.js';

/**
 * The facade's words for a call about a task (tasks/get, tasks/cancel, tasks/resubscribe): such a call has no message
 * to read a language from, so the task's conversation says it, as the registry keeps the task (its remembered
 * language, else the words written in it). `previous`: that record, undefined when the registry has none or is out of reach.
 */
export async function taskCallWords(
  deps: V025FacadeDeps,
  call: { taskId: string | undefined; principal: string },
  languages: ConversationLanguages,
): Promise<{ words: FacadeWords; previous: Task | undefined }> {
  const { taskId, principal } = call;
  const previous = taskId ? await deps.registry.get(taskId, principal).catch(() => undefined) : undefined;
  const language = await turnLanguageOf(deps, { previous, principal }, languages).catch(() => undefined);
  return { words: wordsIn(language), previous };
}

/**
 * A task call's failure as its user reads it, in its conversation's language: one of the gateway's own (the agent out
 * of reach, a time-out) as message/send tells it (toldInWords), and a refused cancel (-32002), whoever refused it, in the
 * facade's words (notCancelableReason). The agent's other reasons stay as it said them. The code stays the same.
 */
export async function toldInTaskLanguage(
  error: unknown,
  call: { taskId: string | undefined; principal: string },
  deps: V025FacadeDeps,
  languages: ConversationLanguages,
): Promise<unknown> {
  if (!(error instanceof A2AError)) return error;
  const notCancelable = error.code === ErrorCode.TaskNotCancelable;
  if (!notCancelable && !isGatewayFailure(error.message)) return error;
  const { words, previous } = await taskCallWords(deps, call, languages);
  return notCancelable ? error.toldAs(notCancelableReason(words, previous, error.message)) : toldInWords(error, words);
}

/**
 * Why a cancel was refused. A task whose turn waits on a permission prompt is shown waiting (`input-required`,
 * shown-state.ts): the cancel is the agent's to refuse, or the gateway's when an operator's `bailian.mappings` shows
 * that turn finished (task-methods.ts). Either way its user is told how to decline the tool instead, a reply the
 * facade sends as the prompt's deny. Any other refusal in the conversation's words; an English conversation keeps
 * those the gateway or the agent gave.
 */
function notCancelableReason(words: FacadeWords, previous: Task | undefined, said: string): string {
  if (promptWaitedOn(previous)) return words.notCancelableWhilePromptWaits;
  return words.language === 'en' ? said : words.taskNotCancelable;
}

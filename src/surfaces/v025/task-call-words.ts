import { A2AError, type Task } from '../../model/index.js';
import type { V025FacadeDeps } from './deps.js';
import type { ConversationLanguages } from './conversation-languages.js';
import { toldInWords } from './errors.js';
import { isGatewayFailure, type FacadeWords } from './reply/index.js';
import { turnLanguageOf, wordsIn } from './reply-options.js';

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
 * A task call's failure of the gateway's own (the agent out of reach, a time-out) told in its conversation's
 * language, as message/send tells it (toldInWords); the agent's own reasons stay as it said them.
 */
export async function toldInTaskLanguage(
  error: unknown,
  call: { taskId: string | undefined; principal: string },
  deps: V025FacadeDeps,
  languages: ConversationLanguages,
): Promise<unknown> {
  if (!(error instanceof A2AError) || !isGatewayFailure(error.message)) return error;
  return toldInWords(error, (await taskCallWords(deps, call, languages)).words);
}

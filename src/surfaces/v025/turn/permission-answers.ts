import { withFields, type SendMessageRequest, type Task } from '../../../model/index.js';
import { joinText } from '../../../translate/index.js';
import { chosenOption, pendingPermission, permissionAnswer, type PermissionRequest } from '../../../upstream/iac-code/permissions.js';
import { asksDecision } from '../reply/index.js';
import { permissionPromptText } from '../reply/permission-prompt.js';
import { optionNames, type FacadeWords } from '../reply/words.js';

/**
 * A Bailian user answers iac-code's permission prompt in words ("Allow once", "yes", "拒绝", "允许一次"); iac-code
 * only reads the answer as its data part. So a turn sent into a task that waits on a prompt becomes
 * that data part, and a reply that picks no option is asked again without reaching the upstream (iac-code
 * would refuse it: while the prompt is open the task takes nothing else).
 */
export type PermissionTurn = { request: SendMessageRequest; reprompt?: undefined } | { request: SendMessageRequest; reprompt: Task };

/** Whether the task waits on a decision the facade makes of the caller's words: a permission or a candidate. */
export const waitsOnDecision = (task: Task): boolean => task.status.state === 'TASK_STATE_INPUT_REQUIRED' && asksDecision(task.metadata);

/** The permission prompt the task's turn waits on, if it waits on one. */
export const promptWaitedOn = (task: Task | undefined): PermissionRequest | undefined =>
  task?.status.state === 'TASK_STATE_INPUT_REQUIRED' ? pendingPermission(task.metadata) : undefined;

export function answerPermission(request: SendMessageRequest, paused: Task | undefined, words: FacadeWords): PermissionTurn {
  const prompt = promptWaitedOn(paused);
  if (!paused || !prompt) return { request };
  const { message } = request;
  const decision = chosenOption(prompt, joinText(message.parts), optionNames);
  if (decision) {
    // iac-code matches the answer to its prompt by task and context; a caller may have named the task alone.
    const contextId = message.contextId ?? paused.contextId;
    const answer = withFields(message, { taskId: paused.id, parts: [permissionAnswer(prompt, decision)], ...(contextId ? { contextId } : {}) });
    return { request: withFields(request, { message: answer }) };
  }
  // The prompt still waits: its metadata says so, and the turn ends as the prompt's did (shown-state.ts).
  const reprompt: Task = {
    id: paused.id,
    contextId: paused.contextId ?? paused.id,
    ...(paused.metadata ? { metadata: paused.metadata } : {}),
    status: {
      state: 'TASK_STATE_INPUT_REQUIRED',
      message: {
        messageId: `${prompt.inputId}-again`,
        role: 'ROLE_AGENT',
        parts: [{ text: words.askedAgain(permissionPromptText(prompt, words)) }],
      },
      timestamp: new Date().toISOString(),
    },
  };
  return { request, reprompt };
}

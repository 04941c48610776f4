import type { Task, TaskStatus } from '../../../model/index.js';

/**
 * Whether a held Task (an a2a-js 1.x agent opens the stream of an answer with its waiting task: reducer.ts, onTask)
 * asks by the very message its caller was shown before this turn (`before`: the task as they were shown it): the
 * question they just answered. Shown again at the turn's bound, it read as if the agent had refused the answer; it
 * is no word of the agent's, which has said nothing yet.
 */
export const repeatsShownQuestion = (held: TaskStatus | undefined, before: Task | undefined): boolean => {
  const asked = held?.message;
  return asked !== undefined && before !== undefined && asked.messageId === lastAgentMessageId(before);
};

/**
 * The id of the last agent message of a task (its status message, else its history's): what its caller read last. A
 * cut turn's note keeps the task before it without its status message, that message last in its history (cut-turn-notes.ts).
 */
function lastAgentMessageId(task: Task): string | undefined {
  const { message } = task.status;
  if (message?.role === 'ROLE_AGENT') return message.messageId;
  return task.history?.findLast((said) => said.role === 'ROLE_AGENT')?.messageId;
}

/** The held Task asks a question of the agent's its caller was not shown before this turn: its frame shows it. */
export const asksAnew = (held: TaskStatus | undefined, before: Task | undefined): boolean =>
  held?.message?.role === 'ROLE_AGENT' && !repeatsShownQuestion(held, before);

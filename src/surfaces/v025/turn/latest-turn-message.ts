import { withFields, type Message, type Task } from '../../../model/index.js';

/**
 * The message that opened the task's latest turn: its last user message. Its reply artifact's id is made from it
 * (reply-artifact-id.ts), so every way of showing that turn again (tasks/get, tasks/resubscribe, a prompt asked
 * again) names the reply as the turn itself did.
 */
export const latestTurnMessageOf = (task: Task | undefined): Message | undefined =>
  (task?.history ?? []).findLast((message) => message.role === 'ROLE_USER');

/**
 * The task's latest turn as it began: its message, and the task as that message found it (the history before it).
 * What a turn's own words were told in was read from these (turn-language.ts), before the agent answered: a read of
 * the turn reads them so too, not from the answer, which may be in another language than the turn picked.
 */
export function latestTurnAsItBegan(task: Task): { message: Message | undefined; previous: Task } {
  const history = task.history ?? [];
  const at = history.findLastIndex((message) => message.role === 'ROLE_USER');
  return at < 0 ? { message: undefined, previous: task } : { message: history[at], previous: withFields(task, { history: history.slice(0, at) }) };
}

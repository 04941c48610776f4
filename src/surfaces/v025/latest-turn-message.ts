import type { Message, Task } from '../../model/index.js';

/**
 * The message that opened the task's latest turn: its last user message. Its reply artifact's id is made from it
 * (reply-artifact-id.ts), so every way of showing that turn again (tasks/get, tasks/resubscribe, a prompt asked
 * again) names the reply as the turn itself did.
 */
export const latestTurnMessageOf = (task: Task | undefined): Message | undefined =>
  (task?.history ?? []).findLast((message) => message.role === 'ROLE_USER');

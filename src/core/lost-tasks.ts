import { LRUCache } from 'lru-cache';
import { A2AError, ErrorCode, isTerminalState, withFields, type Message, type Task } from '../model/index.js';

/** What the gateway records as the reason of a task the agent lost before it finished. */
export const AGENT_LOST_TASK = 'The agent no longer knows this task (it may have restarted), so it cannot go on';

/** `tasks.lost-after-ms` by default: how long the agent must keep saying it does not know a task. */
export const LOST_AFTER_MS = 30_000;

/** The agent's answer for a task it does not know. */
export const isTaskNotFound = (error: unknown): boolean => error instanceof A2AError && error.code === ErrorCode.TaskNotFound;

/**
 * A recorded task the agent lost (an agent that keeps its tasks in memory restarted, or dropped it) as
 * the gateway keeps it: a finished one as recorded; an unfinished one failed, saying why, since it can
 * never finish at the agent, instead of listed as running for ever while GetTask says it does not exist.
 * Its last status message moves into the history, as a status change does.
 */
export function lostTask(recorded: Task, now = new Date()): Task {
  if (isTerminalState(recorded.status.state)) return recorded;
  const { id: taskId, contextId } = recorded;
  const reason: Message = { messageId: `${taskId}-lost`, role: 'ROLE_AGENT', taskId, contextId, parts: [{ text: AGENT_LOST_TASK }] };
  const previous = recorded.status.message;
  const history = recorded.history ?? [];
  const moved = previous && history.at(-1)?.messageId !== previous.messageId ? [...history, previous] : history;
  return withFields(recorded, {
    status: { state: 'TASK_STATE_FAILED', message: reason, timestamp: now.toISOString() },
    ...(moved.length > 0 ? { history: moved } : {}),
  });
}

export interface LostTasks {
  /**
   * The agent just said it does not know the task: whether it has said so for `lost-after-ms` since the
   * first time (then the task is lost). One not-found (a proxy's 404 page, an agent replica that blinks)
   * only answers from the record, as recorded.
   */
  notFound(taskId: string): boolean;
  /** The agent knows the task again. */
  found(taskId: string): void;
}

/** Per process: when each task was first not found, for the last 10,000 such tasks. */
export function createLostTasks(lostAfterMs = LOST_AFTER_MS, now: () => number = Date.now): LostTasks {
  const missingSince = new LRUCache<string, number>({ max: 10_000 });
  return {
    notFound(taskId) {
      const since = missingSince.get(taskId);
      if (since === undefined) missingSince.set(taskId, now());
      return now() - (since ?? now()) >= lostAfterMs;
    },
    found(taskId) {
      missingSince.delete(taskId);
    },
  };
}

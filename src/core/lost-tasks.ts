import { LRUCache } from 'lru-cache';
import { A2AError, ErrorCode, isTerminalState, withFields, type Message, type Task, type TaskStatus } from '../model/index.js';

/** What the gateway records as the reason of a task the agent lost before it finished. */
export const AGENT_LOST_TASK = 'The agent no longer knows this task (it may have restarted), so it cannot go on';

/** `tasks.lost-after-ms` by default: how long the agent must keep saying it does not know a task. */
export const LOST_AFTER_MS = 30_000;

/** The agent's answer for a task it does not know. */
export const isTaskNotFound = (error: unknown): boolean => error instanceof A2AError && error.code === ErrorCode.TaskNotFound;

/** How often a subscription to a recorded task the agent does not know asks the agent again, until the task is lost or found. */
export const LOST_POLL_MS = 1_000;

/**
 * A recorded task the agent lost (an agent that keeps its tasks in memory restarted, or dropped it) as
 * the gateway keeps it: a finished one as recorded; an unfinished one failed, saying why, since it can
 * never finish at the agent, instead of listed as running for ever while GetTask says it does not exist.
 */
export function lostTask(recorded: Task, now = new Date()): Task {
  if (isTerminalState(recorded.status.state)) return recorded;
  const { id: taskId, contextId } = recorded;
  const reason: Message = { messageId: `${taskId}-lost`, role: 'ROLE_AGENT', taskId, contextId, parts: [{ text: AGENT_LOST_TASK }] };
  return settledAs(recorded, { state: 'TASK_STATE_FAILED', message: reason, timestamp: now.toISOString() });
}

/**
 * A recorded unfinished task the agent lost (it kept not knowing it for `lost-after-ms`: LostTasks), canceled
 * by its caller: nothing runs it any more, so the cancel is done as asked (A2A 1.0 §3.1.5 answers the Task
 * with its canceled status) rather than refused as not found while GetTask still answers it. Never of a task
 * the agent only blinked on: it may run that one on (recording.ts asks the agent's CancelTask again).
 */
export function canceledLostTask(recorded: Task, now = new Date()): Task {
  return settledAs(recorded, { state: 'TASK_STATE_CANCELED', timestamp: now.toISOString() });
}

/** The task in its new status; its last status message moves into the history, as a status change does. */
function settledAs(recorded: Task, status: TaskStatus): Task {
  const previous = recorded.status.message;
  const history = recorded.history ?? [];
  const moved = previous && history.at(-1)?.messageId !== previous.messageId ? [...history, previous] : history;
  return withFields(recorded, { status, ...(moved.length > 0 ? { history: moved } : {}) });
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

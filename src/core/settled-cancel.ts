import { setTimeout as sleep } from 'node:timers/promises';
import { A2AError, isTerminalState, type Task } from '../model/index.js';

/** How long a cancel the agent answered with the task still running is followed before it counts as refused. */
export const CANCEL_SETTLE_MS = 2_000;
/** The first wait before the task is read again; each next one doubles (50, 100, 200, ... ms). */
const FIRST_READ_AFTER_MS = 50;

/**
 * The answer to CancelTask once the cancel settled. A 1.0 server answers CancelTask with the task CANCELED or
 * with TaskNotCancelableError (-32002), never with a task still running: a2a-js 1.x waits for the agent's
 * events and refuses a task that did not end canceled. a2a-js 0.2.5 answers with the task as its store holds
 * it the moment the executor's cancelTask returns, before the canceled status the executor then publishes is
 * saved (its README's pattern: cancelTask flags the task, the execute loop publishes `canceled`), so its
 * answer says WORKING of a task that ends canceled. Such an answer is followed: the task is read again (`read`)
 * at growing intervals for up to CANCEL_SETTLE_MS, until it is terminal. Canceled: that task answers. Ended
 * otherwise (it completed meanwhile), or still not ended past the bound: TaskNotCancelable, as a2a-js 1.x answers.
 */
export async function settledCancel(answer: Task, read: () => Promise<Task>, signal: AbortSignal, boundMs = CANCEL_SETTLE_MS): Promise<Task> {
  let task = answer;
  const deadline = Date.now() + boundMs;
  for (let waitMs = FIRST_READ_AFTER_MS; !isTerminalState(task.status.state); waitMs *= 2) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(waitMs, left), undefined, { signal }).catch((aborted: unknown) => {
      throw signal.reason ?? aborted;
    });
    task = await read();
  }
  if (task.status.state === 'TASK_STATE_CANCELED') return task;
  throw A2AError.taskNotCancelable(task.id);
}

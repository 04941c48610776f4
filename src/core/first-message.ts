import { withFields, type Message, type Task } from '../model/index.js';

/** `task` with `first` at the start of its history unless the history already holds it. */
function withFirstMessage(task: Task, first: Message): Task {
  if (task.history?.some((message) => message.messageId === first.messageId)) return task;
  return withFields(task, { history: [first, ...(task.history ?? [])] });
}

/** The opening user message of a stored history, if it has one. */
function openingUserMessage(stored: Task | undefined): Message | undefined {
  const first = stored?.history?.[0];
  return first?.role === 'ROLE_USER' ? first : undefined;
}

/** The message that opened a new task, as its history holds it. */
export function openingMessage(message: Message, task: Task): Message {
  const contextId = message.contextId ?? task.contextId;
  return withFields(message, { taskId: task.id, ...(contextId ? { contextId } : {}) });
}

/**
 * The snapshot to store for a Task answer (SendMessage, GetTask, CancelTask), given what is stored.
 * An answer whose history was cut by historyLength keeps the stored history. iac-code saves a new task
 * before its SDK records the opening user message, so its answers never show that message: the stored
 * one (or, for a new task, `opening`) is kept at the start, so the history starts where the task did; an
 * answer with its whole history is relayed so too (recording.ts), as ListTasks and push notifications show it.
 */
export function snapshotToStore(answer: Task, stored: Task | undefined, options: { historyTrimmed: boolean; opening?: Message }): Task {
  let snapshot = answer;
  if (options.historyTrimmed && stored) {
    const { history: _cut, ...rest } = answer;
    snapshot = stored.history ? withFields(rest, { history: stored.history }) : rest;
  }
  const opening = options.opening ?? openingUserMessage(stored);
  return opening ? withFirstMessage(snapshot, opening) : snapshot;
}

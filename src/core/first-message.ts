import { withFields, type Message, type Task } from '../model/index.js';

/** `task` with `first` at the start of its history unless the history already holds it. */
function withFirstMessage(task: Task, first: Message): Task {
  if (task.history?.some((message) => message.messageId === first.messageId)) return task;
  return withFields(task, { history: task.history ? [first, ...task.history] : [first] });
}

/**
 * The opening user message of a stored history, if it has one. Only a record the store never cut at its front
 * (fewer messages than it keeps, `historyLimit`) starts where the task did: past the limit its first message is
 * whatever the window starts with (a follow-up an a2a-js 0.2.5 agent never stores, which put first would stand
 * before the question it answers). The test needs nothing recorded besides the history, so it holds for the memory
 * store and Redis alike, and for records an earlier release wrote. A record cut under a lower limit than the one
 * the gateway now runs with is taken for whole; the other way, a record that just reaches the limit uncut loses
 * nothing but the opening message put back.
 */
function openingUserMessage(stored: Task | undefined, historyLimit: number): Message | undefined {
  const history = stored?.history;
  if (!history || history.length >= historyLimit) return undefined;
  const first = history[0];
  return first?.role === 'ROLE_USER' ? first : undefined;
}

/**
 * `task` with the opening user message of the record it is written over first, unless it holds it already: iac-code
 * (and the demo agent) never shows the message that opened its task, in an answer or in the Task a stream or a
 * subscription opens with, so the record's (openingUserMessage's rule) stands for it.
 */
export function withRecordedOpening(task: Task, stored: Task | undefined, historyLimit: number): Task {
  const opening = openingUserMessage(stored, historyLimit);
  return opening ? withFirstMessage(task, opening) : task;
}

/** The message that opened a new task, as its history holds it. */
export function openingMessage(message: Message, task: Task): Message {
  const contextId = message.contextId ?? task.contextId;
  return withFields(message, contextId ? { taskId: task.id, contextId } : { taskId: task.id });
}

/** A new task's Task as recorded: with the message that opened it first, as its history holds it (openingMessage), unless it holds it. */
export function withOpeningMessage(task: Task, message: Message): Task {
  return withFirstMessage(task, openingMessage(message, task));
}

/**
 * The snapshot to store for a Task answer (SendMessage, GetTask, CancelTask), given what is stored.
 * An answer whose history was cut by historyLength keeps the stored history. iac-code saves a new task
 * before its SDK records the opening user message, so its answers never show that message: the stored
 * one (or, for a new task, `opening`) is kept at the start while the record holds it (`historyLimit`, the
 * store's), so the history starts where the task did; an answer with its whole history is relayed so too
 * (recording.ts), as ListTasks and push notifications show it.
 */
export function snapshotToStore(
  answer: Task,
  stored: Task | undefined,
  options: { historyTrimmed: boolean; opening?: Message },
  historyLimit = Infinity,
): Task {
  let snapshot = answer;
  if (options.historyTrimmed && stored) {
    const { history: _cut, ...rest } = answer;
    snapshot = stored.history ? withFields(rest, { history: stored.history }) : rest;
  }
  return options.opening ? withFirstMessage(snapshot, options.opening) : withRecordedOpening(snapshot, stored, historyLimit);
}

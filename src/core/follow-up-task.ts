import { withFields, type Message, type Task } from '../model/index.js';
import { openingMessage } from './first-message.js';

/**
 * The Task a follow-up's stream (a message naming its task) opens with when the agent's tells nothing of the
 * task's past (stream-opening.ts): a 0.2.5 agent starts such a stream with a status-update, from which the
 * translator can only make a Task of id, context and status (translate/v025/stream.ts), and iac-code starts it
 * with the update alone. An a2a-js 1.x agent opens it with the stored task, the follow-up message last in its
 * history, and so does this: the recorded history and artifacts, the follow-up, the opening status. Recording
 * folds that Task over the record, which one of the ids alone replaced, earlier turns lost.
 */
export function followUpTask(recorded: Task, opening: Task, followUp: Message): Task | undefined {
  return opening.id === recorded.id && toldNothingOfThePast(opening) ? recordedWith(recorded, opening, followUp) : undefined;
}

const toldNothingOfThePast = (task: Task): boolean => !task.history?.length && !task.artifacts?.length;

/**
 * The recorded task in the agent's opening state. Its status message (the question the follow-up answers)
 * moves into the history as a status change moves it (task-registry/fold.ts), then the follow-up, with the
 * task's ids, as the message that opened the task is recorded.
 */
function recordedWith(recorded: Task, opening: Task, followUp: Message): Task {
  const history = [...(recorded.history ?? [])];
  const said = (message: Message): boolean => history.some((earlier) => earlier.messageId === message.messageId);
  const question = recorded.status.message;
  if (question && !said(question)) history.push(question);
  if (!said(followUp)) history.push(openingMessage(followUp, recorded));
  return withFields(recorded, { status: opening.status, history, ...(opening.metadata ? { metadata: opening.metadata } : {}) });
}

import { withFields, type Artifact, type Message, type StreamResponse, type Task } from '../../../model/index.js';
import { joinText } from '../../../translate/index.js';
import { isAssistantFinal } from '../../../upstream/iac-code/events.js';
import { taskTurnEvents } from '../reply/index.js';
import { restatedAmong } from '../recovery/rest-restatements.js';
import { withoutStaleEnvelopes } from '../recovery/turn-pipeline.js';
import { latestStatus, toolOf } from '../recovery/turn-snapshot.js';

/**
 * What tasks/get shows of a turn still at work: what it said so far, read so that each read is the start of the
 * reply its end shows, as closely as the task tells. The task does not say where a file came among the messages,
 * nor which turn wrote it, and iac-code gives every text chunk of a turn one message id, the text after a tool
 * call too: shown after the words said so far, a file would put the words after it onto those before
 * ("模板已写好。" read as one with "正在起草模板"), which the finished turn then splits. So a file is shown only where
 * its place is sure: the latest update is the end of the tool call that wrote the task's newest file (iac-code
 * sends the file just before it, and nothing came since); or the turn's messages each have an id of their own,
 * so none is split (the file comes after the words said so far; the finished turn may put it between). Else
 * the files wait for the turn's end, and so does the run of messages of the last id, which may hold words from
 * both sides of one. iac-code's restatement of its last words (`assistantFinal`, an id of its own) waits too:
 * only the turn's end tells it from new words.
 */

type MessageEvent = StreamResponse & { statusUpdate: { status: { message: Message } } };

const isMessageEvent = (event: StreamResponse): event is MessageEvent => 'statusUpdate' in event && event.statusUpdate.status.message !== undefined;

/** The last of the turn's messages when it may be iac-code's restatement of its last words: another id than the one before, the same words. */
function mayRestate(messages: readonly Message[], task: Task): boolean {
  const last = messages.at(-1);
  const before = messages.at(-2);
  if (!last || !before || last.messageId === before.messageId) return false;
  if (isAssistantFinal(latestStatus(task).metadata) && task.status.message?.messageId === last.messageId) return true;
  return (
    restatedAmong(
      joinText(last.parts),
      messages.slice(0, -1).map((message) => joinText(message.parts)),
    ) !== undefined
  );
}

/** The latest update is the end of the tool call that wrote the task's newest file: every file comes after the words said so far. */
function filesAtEnd(task: Task): boolean {
  const newest = task.artifacts?.at(-1)?.artifactId;
  const wrote = toolOf(latestStatus(task))?.artifact?.artifactId;
  return newest !== undefined && wrote === newest;
}

/** How many of the turn's messages come before the run of those with the last one's id. */
function beforeLastRun(messages: readonly Message[]): number {
  const id = messages.at(-1)?.messageId;
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.messageId === id) start--;
  return start;
}

/**
 * The events of the task's latest turn while it works. Its status message is one of the messages said so far (the
 * task's conversation holds it: task-history.ts), not the turn's last word after its files. A pipeline task's
 * status keeps the envelopes of the turn before while a follow-up works without new ones (turn-pipeline.ts):
 * those are not this turn's words.
 */
export function workingTurnEvents(task: Task, earlierArtifacts?: readonly Artifact[]): StreamResponse[] {
  const { message: _said, ...quiet } = task.status;
  const events = taskTurnEvents(withFields(task, { status: quiet }), earlierArtifacts);
  const closing = events.at(-1);
  if (!closing || !('statusUpdate' in closing)) return events;
  const [opening, ...rest] = events.slice(0, -1);
  const said = rest.filter(isMessageEvent);
  const files = rest.filter((event) => 'artifactUpdate' in event);
  const messages = said.map((event) => event.statusUpdate.status.message);
  const sure = mayRestate(messages, task) ? said.slice(0, -1) : said;
  const sureMessages = sure.map((event) => event.statusUpdate.status.message);
  const ownIds = new Set(sureMessages.map((message) => message.messageId)).size === sureMessages.length;
  const shown = files.length === 0 || ownIds || filesAtEnd(task) ? [...sure, ...files] : sure.slice(0, beforeLastRun(sureMessages));
  return [...(opening ? [opening] : []), ...shown, { statusUpdate: withoutStaleEnvelopes(closing.statusUpdate) }];
}

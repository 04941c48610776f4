import { isDeepStrictEqual } from 'node:util';
import {
  sameMessage,
  withFields,
  isActiveState,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../../../model/index.js';
import { joinText } from '../../../translate/index.js';
import { closingTaskEvents } from '../reply/task-events.js';
import { restatedAmong, restatesFile } from './rest-restatements.js';
import { missedBefore, withoutStaleEnvelopes, wordsLostEvent } from './turn-pipeline.js';

/**
 * What a turn whose upstream stream broke off said after the break, read from the task as the agent keeps
 * it (GetTask). The agent's SDK moves every status message into the task's history when the status
 * changes, so the turn's agent messages are the history's, then the current status message, in the order
 * they were streamed: what the stream already carried is skipped from where the turn began, by its text
 * (restCursor).
 */

/** What the facade knows of the turn it recovers: the message it sent, the task before it, what its stream carried. */
export interface TurnSoFar {
  /** The message this turn sent upstream. */
  sent: Message;
  /**
   * The digest of what that message asked (repeated-message.ts), once a note kept it without its parts: the
   * conversation's next message that asks the same reads the rest as the answer to it.
   */
  sentDigest?: string;
  /** The task as it was before this turn (its agent messages end where this turn's begin). */
  previous?: Task;
  /** The text of each agent status message the stream carried this turn, in order. */
  passed: string[];
  /** The ids of the artifacts the stream carried this turn. */
  passedFiles?: readonly string[];
  /**
   * The parts of each of those files as the caller holds them, its chunks put together (undefined: the stream
   * carried only chunks appended to a file it did not begin): an agent may go on with a file after the break.
   */
  shownFiles?: ReadonlyMap<string, readonly Part[] | undefined>;
  /** The last status update the caller was shown (a resubscription's snapshot may hold it still: turn-snapshot.ts). */
  lastStatus?: TaskStatusUpdateEvent;
  /** The waiting task's status the stream opened with, while nothing else came (turn-tracker.ts). */
  heldStatus?: TaskStatus;
  /**
   * The caller was shown that waiting task, its question with it: the reply's first frame, which goes out at the
   * turn's bound when the agent said nothing after it (reply/turn.ts); not when it asks by the message the caller read
   * before the turn, whose question the frame does not show again (reply/held-question.ts). Kept once the agent goes on.
   */
  heldShown?: boolean;
  /**
   * The turn went on in a fresh context, where the agent has none of the conversation before it, and its caller was
   * not shown the words that opened its reply to say so (../started-afresh.ts): its rest tells them (watched-turn.ts).
   */
  startedAfresh?: boolean;
  /** The highest sequence of the iac-code pipeline envelopes the caller was shown this turn (turn-pipeline.ts). */
  pipelineSequence?: number;
}

/** Where the rest continues: how many of the task's agent messages are already shown or skipped, and the texts this turn showed. */
export interface RestCursor {
  shownMessages: number;
  /** How many characters of the next message the caller read already (its stream told them as a message of their own). */
  partlyShown?: number;
  said: readonly string[];
  /** A file the stream did not carry came while the task worked: the rest waits for the turn's end (restEvents). */
  holding?: boolean;
  /** The files as the caller holds them once the rest so far is shown; absent: as the turn showed them. */
  files?: FilesShown;
}

/** Which files a caller was shown, and what it holds of each (TurnSoFar). */
type FilesShown = Pick<TurnSoFar, 'passedFiles' | 'shownFiles'>;

export const agentMessages = (messages: readonly Message[]): Message[] => messages.filter((message) => message.role === 'ROLE_AGENT');

export { sameMessage };

/** The task's messages in the order it got them: its history, then the current status message. */
export function said(task: Task): Message[] {
  const history = task.history ?? [];
  const current = task.status.message;
  return current && !sameMessage(history.at(-1), current) ? [...history, current] : [...history];
}

/**
 * How many of the task's agent messages came before this turn. Exact when the task recorded the message the
 * turn sent (an a2a SDK records a follow-up); a message that opened the task has none before it (iac-code
 * does not record it); else the count of the agent messages the task had before, when its last one is where
 * that count puts it (the registry's copy of the task may be cut short); else those before the last user message.
 */
function turnStart(messages: readonly Message[], turn: TurnSoFar): number {
  const sentAt = messages.findLastIndex((message) => message.role === 'ROLE_USER' && message.messageId === turn.sent.messageId);
  if (sentAt >= 0) return agentMessages(messages.slice(0, sentAt)).length;
  if (turn.sent.taskId === undefined) return 0;
  const agent = agentMessages(messages);
  const before = turn.previous ? agentMessages(said(turn.previous)) : undefined;
  if (before && (before.length === 0 || sameMessage(agent[before.length - 1], before.at(-1)))) return before.length;
  const lastUser = messages.findLastIndex((message) => message.role === 'ROLE_USER');
  return lastUser < 0 ? 0 : agentMessages(messages.slice(0, lastUser)).length;
}

/**
 * How far the text the caller read (`shown`) goes among the turn's messages: those it read whole, and the
 * characters it read of the next; undefined when the texts differ. The stream may cut the turn's text
 * otherwise than the task does: the iac-code adapter tells the end of a message that could begin a path
 * as a chunk of its own, which the task's history does not hold (upstream/iac-code/workspace-path-events.ts),
 * and drops it when the stream breaks there.
 */
function readSoFar(messages: readonly Message[], shown: string): { messages: number; chars: number } | undefined {
  let at = 0;
  for (let index = 0; index < messages.length; index++) {
    // Where the text read ends, so does the count: an empty message after it may still be given text.
    if (at === shown.length) return { messages: index, chars: 0 };
    const text = joinText(messages[index]!.parts);
    if (shown.startsWith(text, at)) {
      at += text.length;
      continue;
    }
    const rest = shown.slice(at);
    return text.startsWith(rest) ? { messages: index, chars: rest.length } : undefined;
  }
  return at === shown.length ? { messages: messages.length, chars: 0 } : undefined;
}

/**
 * Where the rest of the turn starts in the task: after what came before the turn and what the stream
 * carried, told by matching its text against the task's messages, else by their count (an agent whose
 * task keeps other words than it streamed).
 */
export function restCursor(task: Task, turn: TurnSoFar): RestCursor {
  const messages = said(task);
  const start = turnStart(messages, turn);
  const read = readSoFar(agentMessages(messages).slice(start), turn.passed.join('')) ?? { messages: turn.passed.length, chars: 0 };
  return withFields({ shownMessages: start + read.messages, said: turn.passed }, read.chars > 0 ? { partlyShown: read.chars } : {});
}

/**
 * How many of the first parts of a file as the task holds it the caller holds already: those it was shown
 * (chunks appended to a file are appended to its parts in the task: the a2a-js 1.x and a2a-python SDKs), 0 for
 * a file it was not shown or one the agent wrote anew since; undefined when it was shown chunks of it without
 * its start, so what it holds of it is not known.
 */
export function partsShown(artifact: Artifact, shown: FilesShown): number | undefined {
  if (!shown.passedFiles?.includes(artifact.artifactId)) return 0;
  const held = shown.shownFiles?.get(artifact.artifactId);
  if (held === undefined) return undefined;
  return held.length <= artifact.parts.length && isDeepStrictEqual(artifact.parts.slice(0, held.length), held) ? held.length : 0;
}

type FileEvent = StreamResponse & { artifactUpdate: TaskArtifactUpdateEvent };

/**
 * What of a file (`event`: the file whole) is left to show past the first `shown` parts the caller holds: the file
 * whole when it holds none, the rest as one appended chunk (as the agent's chunks would have come), nothing when it holds it all.
 */
export function fileAfter(event: FileEvent, shown: number): StreamResponse[] {
  const { artifact } = event.artifactUpdate;
  if (shown === 0) return [event];
  if (shown >= artifact.parts.length) return [];
  const rest = withFields(artifact, { parts: artifact.parts.slice(shown) });
  return [{ artifactUpdate: withFields(event.artifactUpdate, { artifact: rest, append: true }) }];
}

/** The files shown so far, with `shown` (each file whole) shown after them. */
function filesAfter(before: FilesShown, shown: readonly FileEvent[]): FilesShown {
  const files = new Map(before.shownFiles ?? []);
  for (const { artifactUpdate } of shown) files.set(artifactUpdate.artifact.artifactId, artifactUpdate.artifact.parts);
  return { passedFiles: [...new Set([...(before.passedFiles ?? []), ...files.keys()])], shownFiles: files };
}

/** The part of a message the caller has not read yet, past the first `chars` characters of its text. */
export function unreadPart(message: Message, chars: number | undefined): Message {
  return chars ? withFields(message, { parts: [{ text: joinText(message.parts).slice(chars) }] }) : message;
}

/**
 * iac-code ends a turn with its last assistant message again whole (`assistantFinal`, a message id of its
 * own): the text after the last tool call, which the chunks before it already said. The history keeps it
 * without the metadata that marks it, so it is known by that: the last message of a finished turn, with
 * another id than the message before it, whose text the turn's text so far ends with from a message's start.
 * Returns where, among `before`, that text starts (below 0: among the texts the turn showed already), if it is one.
 */
function restatedFrom(message: Message, before: readonly Message[], shown: readonly string[]): number | undefined {
  const previous = before.at(-1);
  if (previous && previous.messageId === message.messageId) return undefined;
  const at = restatedAmong(joinText(message.parts), [...shown, ...before.map((piece) => joinText(piece.parts))]);
  return at === undefined ? undefined : at - shown.length;
}

/** The task still waits as the follow-up's stream opened with it: the agent has not gone on with the answer yet. */
export const waitsAsHeld = (task: Task, turn: TurnSoFar): boolean => isDeepStrictEqual(task.status, turn.heldStatus);

/**
 * The events of the rest so far, as a streaming agent would have sent them: the turn's new messages as
 * working updates, what its caller does not hold yet of its files (of one it read in part, the parts after: a
 * cut turn's rest is a reply of its own, cut-turns.ts, which would show the file again from its start) and,
 * once the task no longer works, the status it ended with. The history does not say where a file came
 * among the messages: before the text iac-code restates at the end (the text after its last tool call, and
 * a file is a tool's), else after the messages read so far.
 */
export function restEvents(
  task: Task,
  cursor: RestCursor,
  turn: TurnSoFar,
  earlierArtifacts: readonly Artifact[] | undefined,
): { events: StreamResponse[]; cursor: RestCursor; ended: boolean } {
  const ended = !isActiveState(task.status.state) && !waitsAsHeld(task, turn);
  const all = agentMessages(said(task));
  // A finished turn's status message is said by its final status. A working one waits for the next read: it
  // may be iac-code's restatement, known only as the last message once the turn is over.
  const upTo = task.status.message?.role === 'ROLE_AGENT' ? all.length - 1 : all.length;
  const fresh = all.slice(cursor.shownMessages, upTo).map((message, at) => (at === 0 ? unreadPart(message, cursor.partlyShown) : message));
  const last = fresh.at(-1);
  const restated = ended && last ? restatedFrom(last, fresh.slice(0, -1), cursor.said) : undefined;
  const shown = restated === undefined ? fresh : fresh.slice(0, -1);
  const filesAt = restated === undefined ? shown.length : Math.max(0, restated);
  const taskId = task.id;
  const contextId = task.contextId ?? task.id;
  const closingEvents = closingTaskEvents(task, earlierArtifacts);
  const status = closingEvents.at(-1);
  // A file of text alone that says the turn's text again (the demo agent's reply.txt) is a repeat: the history does not
  // say where it came, and shown before the text it restates, it would read as the answer twice.
  const turnText = [...cursor.said, ...shown.map((message) => joinText(message.parts))];
  const files = closingEvents
    .slice(0, -1)
    .filter((event): event is FileEvent => 'artifactUpdate' in event && !restatesFile(event.artifactUpdate, turnText));
  // A new file while the task works: the messages read with it may be the text after the tool that wrote it,
  // which must follow it ("模板已" before the template, "写好。" after it). Only the turn's end tells (the text
  // iac-code restates), so from here the rest waits for it.
  const newFile = files.some((event) => !turn.passedFiles?.includes(event.artifactUpdate.artifact.artifactId));
  if (!ended && (cursor.holding === true || newFile)) return { events: [], cursor: withFields(cursor, { holding: true }), ended };
  // Of each file, what its caller does not hold yet: a file cut mid-way goes on after the chunks it read.
  const held = cursor.files ?? turn;
  const unshown = files.flatMap((event) => fileAfter(event, partsShown(event.artifactUpdate.artifact, held) ?? 0));
  const working = (message: Message): StreamResponse => ({ statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', message } } });
  const events: StreamResponse[] = [...shown.slice(0, filesAt).map(working), ...unshown, ...shown.slice(filesAt).map(working)];
  if (ended && status && 'statusUpdate' in status) {
    const closing = withoutStaleEnvelopes(status.statusUpdate);
    // What a pipeline turn said before its last update is not in the task (turn-pipeline.ts): the user is told.
    if (missedBefore(closing, turn)) events.unshift(wordsLostEvent(taskId, contextId));
    events.push({ statusUpdate: closing });
  } else if (ended && status) events.push(status);
  const next: RestCursor = withFields(
    { shownMessages: Math.max(cursor.shownMessages, upTo), said: [...cursor.said, ...shown.map((message) => joinText(message.parts))] },
    withFields(
      // The message read in part is still to come.
      fresh.length === 0 && cursor.partlyShown ? { partlyShown: cursor.partlyShown } : {},
      unshown.length > 0 ? { files: filesAfter(held, files) } : cursor.files ? { files: cursor.files } : {},
    ),
  );
  return { events, cursor: next, ended };
}

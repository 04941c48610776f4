import { isDeepStrictEqual } from 'node:util';
import {
  isActiveState,
  withFields,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from '../../../model/index.js';
import { closingTaskEvents } from '../reply/task-events.js';
import { agentMessages, fileAfter, partsShown, restCursor, restEvents, sameMessage, unreadPart, type TurnSoFar } from './turn-rest.js';
import { missedBefore, withoutStaleEnvelopes, wordsLostEvent } from './turn-pipeline.js';

/**
 * What a turn's broken stream missed, told from the Task a resubscription (SubscribeToTask) opens with:
 * the events between the break and the snapshot, as the agent would have streamed them, so that the live
 * events after the snapshot follow on as if the stream had not broken (turn-resubscribe.ts).
 *
 * The task keeps its status messages in its history (the agent's SDK moves each one there when the status
 * changes), its files, and its latest status with the metadata of the update that set it (the SDK merges an
 * update's metadata into the task's by top-level key, and iac-code puts all of its own under `iac_code`): so
 * the messages of the gap are known (past the text the caller read: restCursor), and the latest status
 * update is known whole. Tool calls inside the gap are not, and neither is where a new file came among the
 * gap's messages, unless the gap leaves no doubt (below).
 */

/** The gap's events; `placed: false` when a new file's place among the gap's messages cannot be told. */
export interface SnapshotGap {
  events: StreamResponse[];
  /** The snapshot is of a turn that no longer works: `events` end with the status it ended with. */
  ended: boolean;
  placed: boolean;
}

/** The latest status update of the task, as the agent sent it (without a pipeline turn's envelopes it did not send with it). */
export function latestStatus(task: Task): TaskStatusUpdateEvent {
  const contextId = task.contextId ?? task.id;
  return withoutStaleEnvelopes({ taskId: task.id, contextId, status: task.status, ...(task.metadata ? { metadata: task.metadata } : {}) });
}

/** The iac-code tool trace of a status update, if it is one. */
export function toolOf(update: TaskStatusUpdateEvent): { status?: unknown; artifact?: { artifactId?: unknown } } | undefined {
  const iacCode = update.metadata?.iac_code as Record<string, unknown> | undefined;
  const tool = iacCode?.tool;
  return tool !== null && typeof tool === 'object' ? tool : undefined;
}

/**
 * What the caller missed of one of the turn's files in the snapshot (`event`: the file whole): a file the stream
 * did not carry, whole; the rest of one it carried in part, as the appended chunk the agent sent (or several,
 * put together); nothing of one it carried as it stands (or whose start it did not carry: left to the live chunks).
 */
function missedOfFile(event: StreamResponse & { artifactUpdate: TaskArtifactUpdateEvent }, turn: TurnSoFar): StreamResponse[] {
  const { artifact } = event.artifactUpdate;
  const shown = partsShown(artifact, turn);
  return shown === undefined || shown === artifact.parts.length ? [] : fileAfter(event, shown);
}

/** The same update as one the caller was shown: its status and what iac-code said with it. */
export const sameUpdate = (a: TaskStatusUpdateEvent, b: TaskStatusUpdateEvent | undefined): boolean =>
  b !== undefined && isDeepStrictEqual(a.status, b.status) && isDeepStrictEqual(a.metadata?.iac_code, b.metadata?.iac_code);

/**
 * The events a Task snapshot tells of the turn beyond what the caller was shown (`turn`): the gap's messages
 * as working updates, its new files and the rest of those the stream carried in part, then the latest status
 * update unless the caller saw it. A new file (or the rest of one)
 * goes after the gap's messages only when nothing else can be so: no message came in the gap before the
 * latest one, or the latest update is the end of the tool call that wrote it (iac-code sends the file just
 * before it, and its text before the tool call). A snapshot of a finished turn is read as a GetTask would be.
 */
export function snapshotGap(task: Task, turn: TurnSoFar, earlierArtifacts: readonly Artifact[] | undefined): SnapshotGap {
  const cursor = restCursor(task, turn);
  if (!isActiveState(task.status.state)) {
    const rest = restEvents(task, cursor, turn, earlierArtifacts);
    return { events: rest.events, ended: true, placed: true };
  }
  const current = task.status.message;
  const currentIsNew = current?.role === 'ROLE_AGENT' && !sameMessage(task.history?.at(-1), current);
  // An a2a-js 1.x agent keeps a status message in the history as soon as it comes (one id a message), iac-code
  // once the status changes (one id a turn, where two chunks in a row may say the same): the latest update's
  // message is told by the latest update itself, not twice, but a chunk iac-code said twice is said twice.
  const oneIdAMessage = (task.history ?? []).filter((message) => message.messageId === current?.messageId).length === 1;
  const currentInHistory = current?.role === 'ROLE_AGENT' && !currentIsNew && oneIdAMessage;
  const all = agentMessages(task.history ?? []);
  const history = currentInHistory ? all.slice(0, -1) : all;
  const latest = latestStatus(task);
  const carriesMessage = currentIsNew || currentInHistory;
  // The latest update was shown: its message is among those the caller read, or it is the last update it read.
  const latestShown = carriesMessage ? history.length + 1 <= cursor.shownMessages : sameUpdate(latest, turn.lastStatus);
  // The caller may have read the start of the first message of the gap (restCursor): only the rest is missed.
  const partly = (message: Message, at: number): Message => (at === cursor.shownMessages ? unreadPart(message, cursor.partlyShown) : message);
  const gapMessages = history.slice(cursor.shownMessages).map((message, at) => partly(message, cursor.shownMessages + at));
  const files = closingTaskEvents(task, earlierArtifacts).flatMap((event) => ('artifactUpdate' in event ? missedOfFile(event, turn) : []));
  const tool = toolOf(latest);
  const newFileIds = files.map((event) => ('artifactUpdate' in event ? event.artifactUpdate.artifact.artifactId : ''));
  const toolWroteIt = !latestShown && files.length === 1 && tool?.artifact?.artifactId === newFileIds[0];
  const placed = files.length === 0 || gapMessages.length === 0 || toolWroteIt;
  const working = (message: Message): StreamResponse => ({
    statusUpdate: { taskId: task.id, contextId: task.contextId ?? task.id, status: { state: 'TASK_STATE_WORKING', message } },
  });
  // A pipeline turn's words before the latest update are not in the task (turn-pipeline.ts): the user is told.
  const wordsLost = !latestShown && missedBefore(latest, turn) ? [wordsLostEvent(task.id, task.contextId ?? task.id)] : [];
  const events: StreamResponse[] = [...wordsLost, ...gapMessages.map(working), ...files];
  if (!latestShown) {
    const message = carriesMessage ? partly(current, history.length) : current;
    events.push({ statusUpdate: message === current ? latest : withFields(latest, { status: withFields(latest.status, { message }) }) });
  }
  return { events, ended: false, placed };
}

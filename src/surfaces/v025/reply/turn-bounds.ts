import {
  withFields,
  endsTurn,
  isActiveState,
  type Message,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
} from '../../../model/index.js';
import { isV025FinalState, type V025StreamEvent, type V025TaskStatusUpdateEvent } from '../../../protocol/v025/index.js';
import { defined, statusToV025 } from '../../../translate/index.js';
import type { JsonObject } from '../../../translate/common.js';
import { attachCommands } from './commands.js';
import { partEdges, renderMessageParts } from './render-parts.js';
import { closeFile, replyChunk, showText } from './reply-artifact.js';
import { isAnswerState } from './rules.js';
import { shownState } from './shown-state.js';
import { withState, type ReplyOptions, type ReplyState } from './state.js';
import { unsaidEnd } from './unsaid-end.js';

/** Where the caller's view of a turn opens (its Task) and ends (the reply's last chunk, the final status). */

/** Whether the caller's turn ends with this state: 1.0 ends it, or the profile maps it to a final 0.2.5 state. */
export const endsCallerTurn = (state: TaskState, options: ReplyOptions): boolean =>
  endsTurn(state) || isV025FinalState(options.profile.statesToV025[state]);

export const passMetadata = (metadata: JsonObject | undefined, options: ReplyOptions) => (options.upstreamMetadata === 'pass' ? metadata : undefined);

/** Whether an event says the agent goes on (iac-code's empty `{}` after a permission answer says nothing). */
export const saysSomething = (event: StreamResponse): boolean =>
  'statusUpdate' in event || 'artifactUpdate' in event || 'task' in event || 'message' in event;

/** The first event opens the caller's stream with a Task (Bailian's documented stream always starts so). */
export function start(
  state: ReplyState,
  ref: { taskId?: string; contextId?: string },
  out: V025StreamEvent[],
  options: ReplyOptions,
  opening?: Task,
): ReplyState {
  if (state.started) return state;
  const taskId = options.taskId ?? (ref.taskId || options.newId());
  const contextId = ref.contextId || taskId;
  const status: TaskStatus = opening && isActiveState(opening.status.state) ? opening.status : { state: 'TASK_STATE_SUBMITTED' };
  out.push(
    defined({
      kind: 'task' as const,
      id: taskId,
      contextId,
      status: { state: options.profile.statesToV025[status.state], timestamp: status.timestamp ?? options.now() },
      metadata: passMetadata(opening?.metadata, options),
    }),
  );
  return withState(state, { started: true, taskId, contextId, replyArtifactId: options.replyArtifactId?.(taskId) });
}

/**
 * Text for the reply: agent messages only (a user message echoed back is not the agent's word). Its text
 * parts meet as two working messages do (render-parts.ts); under `native` its other parts are not text.
 */
export function messageText(message: Message | undefined, options: ReplyOptions): string {
  if (!message || message.role !== 'ROLE_AGENT') return '';
  const parts = options.renderParts === 'text' ? message.parts : message.parts.filter((part) => part.text !== undefined);
  return renderMessageParts(parts, options);
}

/** Whether a message's text (as messageText gives it) opens and closes with a part that is not text, which stands on lines of its own. */
export const messageEdges = (message: Message | undefined, options: ReplyOptions): { opens: boolean; closes: boolean } =>
  message && message.role === 'ROLE_AGENT' && options.renderParts === 'text' ? partEdges(message.parts) : { opens: false, closes: false };

export function statusUpdate(
  state: ReplyState,
  status: TaskStatus,
  final: boolean,
  metadata: JsonObject | undefined,
  keepMessage: boolean,
  options: ReplyOptions,
): V025TaskStatusUpdateEvent {
  const translated = statusToV025(keepMessage ? status : withFields(status, { message: undefined }), options.profile, { now: options.now });
  return defined({
    kind: 'status-update' as const,
    taskId: state.taskId,
    contextId: state.contextId,
    status: withFields(translated, { state: shownState(status.state, metadata, options) }),
    final,
    metadata: passMetadata(metadata, options),
  });
}

/** Whether a status message's text belongs in the reply (single: always; own: in answer states only). */
export const inReply = (state: TaskState, options: ReplyOptions): boolean => options.replyArtifacts === 'single' || isAnswerState(state);

const ENDS_WITH_WHOLE_FILES: ReadonlySet<TaskState> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

/** The end of the turn: the reply artifact's last chunk (with the last new text, if any), commands, the final status. */
export function finish(
  state: ReplyState,
  status: TaskStatus,
  metadata: JsonObject | undefined,
  last: { text: string; key: string } | undefined,
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  // A file still streaming ends with the turn. Cut off when the turn failed or broke off, not when it completed or
  // paused for the user: an agent that never says an artifact's last chunk (a2a-python's, unless told to) streams
  // whole files that end only so (file-stream.ts).
  let next = closeFile(state, true, out, options, !ENDS_WITH_WHOLE_FILES.has(status.state));
  const said = last ?? unsaidEnd(next, status, options);
  if (said) next = showText(next, said.text, said.key, true, out, options);
  else if (next.replyChunks > 0) out.push(replyChunk(next, '', true));
  attachCommands(next, out, options);
  const keepMessage = !inReply(status.state, options);
  out.push(statusUpdate(next, status, true, metadata, keepMessage, options));
  return withState(next, { lastStatus: status, done: true });
}

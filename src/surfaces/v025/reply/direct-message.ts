import { withFields, type Message } from '../../../model/index.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import { messageToV025 } from '../../../translate/index.js';
import { upstreamArtifactEvents } from './artifacts.js';
import { showText } from './reply-artifact.js';
import { repeatsShown, saysWords, sinceWords } from './rules.js';
import { withState, type ReplyOptions, type ReplyState } from './state.js';
import { finish, messageEdges, messageText, start } from './turn-bounds.js';

/** A direct Message reply: a 0.2.5 Message (plain profile), or the one-artifact completed task task-only callers expect. */
export function onMessage(state: ReplyState, message: Message, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  if (!state.started && options.profile.options.directMessageAs === 'message') {
    const rendered = options.renderParts === 'text' ? withFields(message, { parts: [{ text: messageText(message, options) }] }) : message;
    out.push(messageToV025(rendered, options.profile));
    return withState(state, { done: true });
  }
  const wasStarted = state.started;
  let next = start(state, { taskId: message.taskId, contextId: message.contextId }, out, options);
  const key = `m:${message.messageId}`;
  const text = messageText(message, options);
  const others = options.renderParts === 'text' ? [] : message.parts.filter((part) => part.text === undefined);
  const nothingNew = text === '' || repeatsShown(text, next);
  if (!wasStarted && others.length === 0) {
    return finish(next, { state: 'TASK_STATE_COMPLETED' }, undefined, nothingNew ? undefined : { text, key }, out, options);
  }
  if (!nothingNew) next = sinceWords(showText(next, text, key, false, out, options), next, saysWords(message));
  if (!nothingNew && messageEdges(message, options).closes) next = withState(next, { breakPending: true });
  if (others.length > 0) {
    const artifact = { artifactId: options.newId(), parts: others };
    next = upstreamArtifactEvents(next, { taskId: next.taskId, contextId: next.contextId, artifact, lastChunk: true }, out, options);
  }
  // A message after the task started is a 1.0 protocol slip: keep its words, do not end the stream.
  return wasStarted ? next : finish(next, { state: 'TASK_STATE_COMPLETED' }, undefined, undefined, out, options);
}

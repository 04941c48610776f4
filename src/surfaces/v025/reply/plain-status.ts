import { isActiveState, isExplainedState, type TaskStatusUpdateEvent } from '../../../model/index.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import { isAssistantFinal, isProviderError, isToolEvent } from '../../../upstream/iac-code/events.js';
import { pendingPermission } from '../../../upstream/iac-code/permissions.js';
import { permissionPromptText } from './permission-prompt.js';
import { closeCode, showText } from './reply-artifact.js';
import { closesWithToken } from './closing-token.js';
import { isIacCodeFinalRepeat, repeatsShown, saysWords, sinceWords, startsSegment } from './rules.js';
import { restatement } from './restatement.js';
import { withState, type ReplyOptions, type ReplyState } from './state.js';
import { endsCallerTurn, finish, inReply, messageEdges, messageText, start, statusUpdate } from './turn-bounds.js';
import { withToolNoted } from './unsaid-end.js';

/**
 * A status update. `facadeWords`: one the facade made of iac-code's pipeline envelopes, whose pieces are
 * lines of their own; the agent's own working messages are its running text (rules.ts).
 */
export function onPlainStatus(
  state: ReplyState,
  event: TaskStatusUpdateEvent,
  out: V025StreamEvent[],
  options: ReplyOptions,
  facadeWords = false,
): ReplyState {
  const { status, metadata } = event;
  const final = endsCallerTurn(status.state, options);
  const question = status.message ? undefined : pendingPermission(metadata);
  const said = question ? permissionPromptText(question, options.words) : messageText(status.message, options);
  const text = inReply(status.state, options) ? said : '';
  // A file, a link or data at either end of a message stands on lines of its own, also across messages.
  const edges = messageEdges(question ? undefined : status.message, options);
  const opens = text !== '' && edges.opens;
  // The message before this one, which a message grown in place says again (restatement.ts); this one is the next's.
  const previous = state.messageText;
  const fields: Partial<ReplyState> = opens
    ? { lastStatus: status, messageText: text, breakPending: true }
    : text === ''
      ? { lastStatus: status }
      : { lastStatus: status, messageText: text };
  let next: ReplyState = withState(start(state, event, out, options), fields);
  const key = question ? `p:${question.inputId}` : `m:${status.message?.messageId ?? ''}`;
  // iac-code's assistantFinal repeats the text after the last tool call: a whole message, not running text.
  const flows = !facadeWords && !question && status.state === 'TASK_STATE_WORKING' && !isAssistantFinal(metadata);
  const fresh = final || startsSegment(key, next);
  // A message that ends the turn under the id of the running text (an agent that streams its reply as messages
  // sharing one id, then closes with that id): that message again, whole or its end, or its last token, or new words.
  const closesRunning = final && !startsSegment(key, next);
  const repeated = text === '' || isIacCodeFinalRepeat(text, metadata, next) || (fresh && repeatsShown(text, next, flows));
  const restated = repeated ? undefined : restatement(text, next, { fresh, flows, closesRunning, previous });
  const nothingNew = repeated || restated?.text === '';
  const added = nothingNew ? undefined : restated;
  // What a message adds after restating the reply carries it on: as running text; as the rest of the
  // sentence the restated text broke off in (the current segment goes on); or on a line of its own, also
  // when it continues the segment it restated (iac-code keeps one message id a turn).
  const finishing = added?.finishing === true;
  const newText = added?.text ?? text;
  const shownKey = finishing ? (next.segmentKey ?? key) : key;
  if (added !== undefined && !flows && !finishing) next = withState(next, { breakPending: true });
  // A turn-ending message under the id of the running text that neither restates nor adds to it starts a line
  // when it is a failure's reason, iac-code's provider error (it fails a turn, or asks to retry, with the id of
  // its text chunks: "正在校验模板Model …"), or new words ("正在部署" then "部署完成。"); only an agent's last
  // token on the closing status ("is 42" then ".") goes on where the text left off (rules.ts, closesWithToken).
  if (closesRunning && added === undefined && !nothingNew) {
    if (isExplainedState(status.state) || isProviderError(metadata) || !closesWithToken(text, next)) next = withState(next, { breakPending: true });
  }
  if (final) return finish(next, status, metadata, nothingNew ? undefined : { text: newText, key: shownKey }, out, options);
  // A file's or data's block is not the agent's code, even in its running text: a fence it left open is closed first.
  if (!nothingNew) {
    const before = opens ? closeCode(next, out, options) : next;
    next = sinceWords(showText(before, newText, shownKey, false, out, options, flows), before, question !== undefined || saysWords(status.message));
  }
  if (!nothingNew && edges.closes) next = withState(next, { breakPending: true });
  if (!isActiveState(status.state)) {
    // A state change the caller must see that does not end its turn (auth-required under a plain profile).
    out.push(statusUpdate(next, status, false, metadata, !inReply(status.state, options), options));
  } else if (text === '' && options.upstreamMetadata === 'pass') {
    out.push(statusUpdate(next, status, false, metadata, true, options));
  }
  return isToolEvent(metadata) ? withToolNoted(withState(next, { breakPending: true }), metadata) : next;
}

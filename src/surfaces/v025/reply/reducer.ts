import {
  withFields,
  isActiveState,
  isExplainedState,
  isTerminalState,
  type Message,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../../../model/index.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import { isAssistantFinal, isProviderError, isToolEvent } from '../../../upstream/iac-code/events.js';
import { pipelineEnvelopes, type PipelineEnvelope } from '../../../upstream/iac-code/pipeline-events.js';
import { pendingPermission } from '../../../upstream/iac-code/permissions.js';
import { permissionPromptText } from './permission-prompt.js';
import { repeatsShownQuestion } from './held-question.js';
import { failedTurnReason } from './words.js';
import { collectCommands } from './commands.js';
import { knowEarlierArtifacts, upstreamArtifactEvents } from './artifacts.js';
import { heldBlocks, holdingArtifact, holdsNothing, NOTHING_HELD, pipelineSaid } from './pipeline-text.js';
import { closeCode, showText } from './reply-artifact.js';
import {
  afterArtifact,
  beforeArtifact,
  beforeStatus,
  goesOnBeside,
  holding,
  holdsArtifact,
  holdsProgress,
  showHeld,
  toldWhole,
  type ShowHeld,
} from './open-artifact.js';
import { onMessage } from './direct-message.js';
import { closesWithToken } from './closing-token.js';
import { isIacCodeFinalRepeat, repeatsShown, saysWords, sinceWords, startsSegment } from './rules.js';
import { restatement } from './restatement.js';
import { withState, type HeldEvent, type ReplyOptions, type ReplyState } from './state.js';
import { closingTaskEvents, taskTurnEvents } from './task-events.js';
import { endsCallerTurn, finish, inReply, messageEdges, messageText, saysSomething, start, statusUpdate } from './turn-bounds.js';
import { withToolNoted } from './unsaid-end.js';

/** One step of the reducer: the state after an event, and the 0.2.5 events to send for it now. */
export interface ReplyStep {
  state: ReplyState;
  events: V025StreamEvent[];
}

/**
 * What a 0.2.5 caller is shown of one turn, as a reducer `(state, 1.0 event) → (state, 0.2.5 events)`.
 * message/stream sends each step's events the moment they are made; message/send folds the same
 * steps into one Task (fold.ts), so both modes show the same words.
 *
 * The reply is the agent's words in the order they arrived: the text of every agent status message
 * (working chunks and the final message of any state), a direct Message's text and every artifact's
 * content, minus what the rules in rules.ts recognise as repeats. Text of different messages, or
 * text after a tool call or an artifact, starts on a new line. Nothing is held back (but the text of
 * iac-code's pipeline candidates, which write at the same time: pipeline-text.ts; progress sent inside a
 * streamed artifact's text and other artifacts' chunks while one streams: open-artifact.ts; a file's cut
 * character: file-stream.ts): a chunk is sent when its event arrives, and the reply artifact is closed by a
 * `lastChunk: true` chunk carrying the turn's last new text, or nothing.
 */
export function reduceReply(state: ReplyState, event: StreamResponse, options: ReplyOptions): ReplyStep {
  if (state.done) return { state, events: [] };
  const out: V025StreamEvent[] = [];
  // The agent said something after a Task that would have ended the turn: it goes on with it. (iac-code's
  // empty `{}` after a permission answer says nothing.)
  const going = state.heldTask && saysSomething(event) ? withState(state, { heldTask: undefined }) : state;
  const ready = 'statusUpdate' in event || 'artifactUpdate' in event ? going : showHeld(going, showing(out, options));
  const collected = collectCommands(ready, event, options);
  const next = apply(collected, event, out, options);
  return { state: next, events: out };
}

/** The upstream ended its stream after a turn-ending state: close the reply and send the final status. */
export function closeReply(state: ReplyState, options: ReplyOptions): ReplyStep {
  if (state.done || !state.started) return { state, events: [] };
  const out: V025StreamEvent[] = [];
  const ready = withHeldShown(showHeld(state, showing(out, options)), out, options);
  if (ready.heldTask) return { state: onTask(withState(ready, { heldTask: undefined }), ready.heldTask, out, options), events: out };
  return { state: finish(ready, ready.lastStatus, undefined, undefined, out, options), events: out };
}

/**
 * The turn failed after it started (the upstream broke off, the gateway shuts down): a failed, final
 * status whose reason is shown like any final message. Before the first event there is no task to fail.
 */
export function failReply(state: ReplyState, reason: string, options: ReplyOptions): ReplyStep {
  if (state.done || !state.started) return { state, events: [] };
  if (state.heldTask && repeatsShownQuestion(state.heldTask.status, options.previous)) {
    // The question its user just answered, asked by the same message: the agent has said nothing yet (held-question.ts).
    return failReply(withState(state, { heldTask: undefined }), reason, options);
  }
  if (state.heldTask) {
    // What the held Task asked is still what the agent last said: shown before why the turn failed.
    const asked = heldTaskSaid(state, state.heldTask, options);
    const failed = failReply(asked.state, reason, options);
    return { state: failed.state, events: [...asked.events, ...failed.events] };
  }
  const text = failedTurnReason(options.words, reason);
  const message: Message = { messageId: options.newId(), role: 'ROLE_AGENT', parts: [{ text }] };
  const failed: TaskStatusUpdateEvent = {
    taskId: state.taskId,
    contextId: state.contextId,
    status: { state: 'TASK_STATE_FAILED', message, timestamp: options.now() },
  };
  return reduceReply(state, { statusUpdate: failed }, options);
}

/** A held Task's question (its status message or iac-code's prompt) as a message of a turn that goes on. */
function heldTaskSaid(state: ReplyState, task: Task, options: ReplyOptions): ReplyStep {
  const status: TaskStatus = withFields(task.status, { state: 'TASK_STATE_WORKING' });
  const update: TaskStatusUpdateEvent = withFields(
    { taskId: task.id, contextId: task.contextId ?? task.id, status },
    task.metadata ? { metadata: task.metadata } : {},
  );
  return reduceReply(withState(state, { heldTask: undefined }), { statusUpdate: update }, options);
}

function apply(before: ReplyState, event: StreamResponse, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  // After an artifact's first piece that said nothing of its last chunk, the next event tells whether it goes on (open-artifact.ts).
  const state = toldWhole(before, event, showing(out, options), options);
  if ('statusUpdate' in event) return onStatus(state, event.statusUpdate, out, options);
  if ('artifactUpdate' in event) return onArtifact(state, event.artifactUpdate, out, options);
  if ('task' in event) return onTask(state, event.task, out, options);
  if ('message' in event) return onMessage(state, event.message, out, options);
  return state; // iac-code's empty `{}` result after a permission answer
}

function onStatus(state: ReplyState, event: TaskStatusUpdateEvent, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  if (holdsProgress(state, event, options)) return holding(state, { statusUpdate: event });
  const shown = beforeStatus(state, event, showing(out, options), options);
  const envelopes = event.status.message ? undefined : pipelineEnvelopes(event.metadata);
  if (envelopes) return onPipelineStatus(shown, event, envelopes, out, options);
  const ready = endsCallerTurn(event.status.state, options) ? withHeldShown(shown, out, options) : shown;
  return onPlainStatus(ready, event, out, options);
}

/** Events held behind an open artifact, relayed as when they came (open-artifact.ts). */
const showing = (out: V025StreamEvent[], options: ReplyOptions): ShowHeld => new Showing(out, options);

/**
 * A class, not a literal of two arrows: the reducer makes one for nearly every event (twice for a status update) and
 * seldom holds anything to show; the literal's two closures and their context cost some 100 bytes more each time
 * (bench/README.md, sixty-third pass).
 */
class Showing implements ShowHeld {
  constructor(
    private readonly out: V025StreamEvent[],
    private readonly options: ReplyOptions,
  ) {}

  event(state: ReplyState, event: HeldEvent): ReplyState {
    return apply(state, event, this.out, this.options);
  }

  closeCode(state: ReplyState): ReplyState {
    return closeCode(state, this.out, this.options);
  }
}

/** A piece of a pipeline update as the working message it reads like. */
const pieceUpdate = (event: TaskStatusUpdateEvent, piece: { text: string; key: string }, state?: TaskStatus): TaskStatusUpdateEvent => {
  const message: Message = { messageId: piece.key, role: 'ROLE_AGENT', parts: [{ text: piece.text }] };
  const status: TaskStatus = state ? withFields(state, { message }) : { state: 'TASK_STATE_WORKING', message };
  return withFields(event, { status, metadata: state ? event.metadata : undefined });
};

/**
 * An iac-code pipeline update: what its envelopes say (pipeline-text.ts) goes through the rules of any
 * agent message, piece by piece, as working messages. A question or a reason that ends the turn carries
 * the update's state, as a status message with it would; otherwise the update itself ends the turn.
 */
function onPipelineStatus(
  state: ReplyState,
  event: TaskStatusUpdateEvent,
  envelopes: readonly PipelineEnvelope[],
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  const final = endsCallerTurn(event.status.state, options);
  const said = pipelineSaid(envelopes, state.pipelineHeld, event.metadata, final, options.words);
  let next = said.hold === state.pipelineHeld ? state : withState(state, { pipelineHeld: said.hold });
  const closing = final ? said.pieces.findLastIndex((piece) => 'ends' in piece) : -1;
  let spoke = false;
  for (const [at, piece] of said.pieces.entries()) {
    if ('break' in piece) {
      next = withState(next, { breakPending: true });
      continue;
    }
    spoke = true;
    if ('artifact' in piece) {
      next = upstreamArtifactEvents(next, piece.artifact, out, options);
      continue;
    }
    next = onPlainStatus(next, pieceUpdate(event, piece, at === closing ? event.status : undefined), out, options, true);
  }
  return !spoke || (final && closing < 0) ? onPlainStatus(next, event, out, options) : next;
}

/** A turn that ends other than by a pipeline update still shows what its candidates wrote so far. */
function withHeldShown(state: ReplyState, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  if (holdsNothing(state.pipelineHeld)) return state;
  let next: ReplyState = withState(state, { pipelineHeld: NOTHING_HELD });
  const working = { taskId: state.taskId, contextId: state.contextId, status: { state: 'TASK_STATE_WORKING' as const } };
  for (const piece of heldBlocks(state.pipelineHeld, options.words)) {
    if ('text' in piece) next = onPlainStatus(next, pieceUpdate(working, piece), out, options, true);
    else if ('artifact' in piece) next = upstreamArtifactEvents(next, piece.artifact, out, options);
  }
  return withState(next, { lastStatus: state.lastStatus });
}

/**
 * A status update. `facadeWords`: one the facade made of iac-code's pipeline envelopes, whose pieces are
 * lines of their own; the agent's own working messages are its running text (rules.ts).
 */
function onPlainStatus(
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

function onArtifact(state: ReplyState, event: TaskArtifactUpdateEvent, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const next = start(state, event, out, options);
  // While pipeline candidates write, a file is one's (iac-code says whose next): it shows with that candidate's
  // block. Behind files still held it waits too, so that files are shown in the order they came.
  if (!holdsNothing(next.pipelineHeld)) return withState(next, { pipelineHeld: holdingArtifact(next.pipelineHeld, event) });
  // Another artifact is streamed: this one waits for it, so that each reads together (open-artifact.ts).
  if (holdsArtifact(next, event, options)) return holding(next, { artifactUpdate: event });
  // The next chunk of an artifact already shown, beside a first piece that may be whole: shown where it comes.
  if (goesOnBeside(next, event, options)) return upstreamArtifactEvents(next, event, out, options);
  const show = showing(out, options);
  return afterArtifact(upstreamArtifactEvents(beforeArtifact(next, event, show), event, out, options), event, show, options);
}

/**
 * A Task: the first one opens the stream. One that ends the turn is a whole answer in one event (an
 * upstream that does not stream, a one-shot reply): its turn is replayed as events (task-events.ts).
 */
function onTask(state: ReplyState, task: Task, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  const ref = { taskId: task.id, contextId: task.contextId };
  if (!endsCallerTurn(task.status.state, options)) return withState(start(state, ref, out, options, task), { lastStatus: task.status });
  // An agent that goes on with a waiting task may first send it as it was when the message came (a2a-js 1.x
  // must open its stream with the Task): such a Task ends the turn only when nothing comes after it. A new task
  // that opens waiting is the agent's whole answer: its SDK keeps that stream open for the answer, so nothing
  // would come, nor end it.
  if (!state.started && !isTerminalState(task.status.state) && options.followsUp !== false) {
    return withState(start(state, ref, out, options, task), { lastStatus: task.status, heldTask: task });
  }
  let next = state;
  knowEarlierArtifacts(next, options);
  // Once a reply was streamed, a closing snapshot adds its artifacts (what was shown of them is not shown again) and how the turn ended.
  const events = state.shown === '' ? taskTurnEvents(task, options.earlierArtifacts) : closingTaskEvents(task, options.earlierArtifacts);
  for (const event of events) next = apply(collectCommands(next, event, options), event, out, options);
  return next;
}

import {
  withFields,
  isTerminalState,
  type Message,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../../../model/index.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import { pipelineEnvelopes } from '../../../upstream/iac-code/pipeline-events.js';
import { repeatsShownQuestion } from './held-question.js';
import { failedTurnReason } from './words.js';
import { collectCommands } from './commands.js';
import { knowEarlierArtifacts, upstreamArtifactEvents } from './artifacts.js';
import { holdingArtifact, holdsNothing } from './pipeline-text.js';
import { closeCode } from './reply-artifact.js';
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
import { onPipelineStatus, withHeldShown } from './pipeline-status.js';
import { onPlainStatus } from './plain-status.js';
import { withState, type HeldEvent, type ReplyOptions, type ReplyState } from './state.js';
import { closingTaskEvents, taskTurnEvents } from './task-events.js';
import { endsCallerTurn, finish, saysSomething, start } from './turn-bounds.js';

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

import {
  withFields,
  eventTaskRef,
  isActiveState,
  isTerminalState,
  statusMessageInHistory,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from '../../model/index.js';
import { withRecordedOpening } from '../first-message.js';
import { withCallerMessagesKept } from './caller-messages.js';
import { withoutLargeUserParts } from './history-parts.js';
import { continuesRun, holdsRun, withRunsMerged } from './merged-runs.js';

/**
 * Fold one stream event into a task, the way the a2a SDKs' task managers do, without mutating
 * either input (stored snapshots are shared). Returns undefined when the event does not describe
 * a task the registry can hold (a bare message, or a message for another task).
 */
export function foldEvent(current: Task | undefined, event: StreamResponse, historyLimit: number): Task | undefined {
  if ('task' in event) return boundHistory(overRecord(current, event.task, historyLimit), historyLimit);
  if ('statusUpdate' in event) return foldStatus(current, event.statusUpdate, historyLimit);
  if ('artifactUpdate' in event) return foldArtifact(current, event.artifactUpdate);
  return foldMessage(current, event.message, historyLimit);
}

/**
 * A Task event over the record of its task: the agent's Task, with the caller's messages it lacks kept
 * (caller-messages.ts), of the record's last `historyLimit` ones, as much as a write keeps, and the record's
 * opening message first (first-message.ts): iac-code's SubscribeToTask opens with its stored Task, which never
 * holds the message that opened the task, and a caller who resubscribed after a disconnect lost it for good.
 */
function overRecord(current: Task | undefined, task: Task, historyLimit: number): Task {
  const record = current?.id === task.id ? current : undefined;
  const recorded = record?.history;
  if (!recorded?.length || historyLimit <= 0) return task;
  const kept = withCallerMessagesKept(task, recorded.length > historyLimit ? recorded.slice(recorded.length - historyLimit) : recorded);
  return withRecordedOpening(kept, record, historyLimit);
}

/**
 * `next` as it may be written over `stored`, or undefined when it must not be: a finished task never runs
 * again. A2A does not reuse a finished task's id, so a running state written after a terminal one is an
 * older view arriving late (another replica's GetTask answer, a stream's last fold), and the terminal state
 * another writer recorded wins. Input-required is not finished: a new turn on it runs.
 */
export function unlessReopened(stored: Task | undefined, next: Task | undefined): Task | undefined {
  const reopens = stored !== undefined && next !== undefined && isTerminalState(stored.status.state) && isActiveState(next.status.state);
  return reopens ? undefined : next;
}

/** The task a batch of one task's events is for (applyAll): the first event names it. */
export function batchTaskId(events: readonly StreamResponse[]): string | undefined {
  return events[0] && eventTaskRef(events[0]).taskId;
}

/**
 * Fold events in order, as `foldEvent` one after the other would; undefined when none of them applied
 * (so there is nothing to write). A batch can hold a whole turn of chunks, so the task is not copied
 * per event: it is copied once, at its first change, and that copy is changed in place (TaskDraft),
 * the history cut once at the end (its runs merged as they came). Neither `current` nor the events are changed.
 */
export function foldEvents(
  current: Task | undefined,
  events: readonly StreamResponse[],
  historyLimit: number,
  historyPartMaxBytes = Infinity,
): Task | undefined {
  const draft = new TaskDraft(current, historyLimit);
  let applied = false;
  for (const event of events) applied = draft.apply(event) || applied;
  return applied && draft.task ? draft.bounded(historyPartMaxBytes) : undefined;
}

/**
 * A task being folded, with what of it this fold owns: objects it copied may change in place; the
 * task it started from, and every object an event brought, stay as they are.
 */
class TaskDraft {
  private owned = false;
  private ownHistory = false;
  private ownArtifacts = false;
  /** Artifacts whose parts this fold copied; made at the first append (most folds append to none). */
  private ownParts: Set<Artifact> | undefined;
  /** Whether the history's last `historyLimit` messages hold a run of one id (merged-runs.ts); undefined: not looked at yet. */
  private runKept: boolean | undefined;

  constructor(
    public task: Task | undefined,
    private readonly historyLimit: number,
  ) {}

  /**
   * The task as a write keeps it (boundHistory): a history that outgrew the limit here had its runs merged as they
   * came (outgrown), and is left to cut to its last `historyLimit` messages.
   */
  bounded(partMaxBytes: number): Task {
    const task = this.task!;
    const history = task.history;
    if (this.runKept === undefined || !history || history.length <= this.historyLimit) return boundHistory(task, this.historyLimit, partMaxBytes);
    return withoutLargeUserParts(withFields(task, { history: history.slice(history.length - this.historyLimit) }), partMaxBytes);
  }

  apply(event: StreamResponse): boolean {
    if ('task' in event) this.replace(event.task);
    else if ('statusUpdate' in event) this.status(event.statusUpdate);
    else if ('artifactUpdate' in event) this.artifact(event.artifactUpdate);
    else return this.message(event.message);
    return true;
  }

  private replace(task: Task): void {
    // Bounded at once, as one event at a time would be: the runs past the limit merged before the next chunk comes.
    this.task = boundHistory(overRecord(this.task, task, this.historyLimit), this.historyLimit);
    this.owned = this.ownHistory = this.ownArtifacts = false;
    this.ownParts = undefined;
    this.runKept = undefined;
  }

  /** The task, copied the first time it changes; an update for a task never seen starts one. */
  private own(seed: { taskId: string; contextId?: string }): Task {
    if (!this.task) {
      this.task = seedTask(seed.taskId, seed.contextId);
      this.owned = true;
    } else if (!this.owned) {
      this.task = withFields(this.task, {});
      this.owned = true;
    }
    return this.task;
  }

  private appendHistory(task: Task, message: Message): void {
    if (!this.ownHistory) {
      task.history = [...(task.history ?? [])];
      this.ownHistory = true;
    }
    const history = task.history!;
    if (this.runKept === false && continuesRun(message, history.at(-1))) this.runKept = true;
    history.push(message);
    if (this.historyLimit > 0 && history.length > this.historyLimit) this.outgrown(task, history);
  }

  /**
   * A history one message past what a write keeps, as one event at a time bounds it (boundHistory): with a run
   * among its last `historyLimit + 1` messages, those merged then cut; else its oldest message is cut, which is
   * left to the batch's end (the messages before the last `historyLimit` are no record's, and hold no run). The
   * first time, the whole history is read: a record an earlier, higher limit left longer may hold runs before.
   */
  private outgrown(task: Task, history: Message[]): void {
    const from = this.runKept === undefined ? 0 : history.length - this.historyLimit - 1;
    this.runKept ??= holdsRun(history);
    if (!this.runKept) return;
    task.history = cutHistory(from > 0 ? history.slice(from) : history, this.historyLimit);
    this.runKept = false;
  }

  private status(update: TaskStatusUpdateEvent): void {
    const task = this.own(update);
    const previous = task.status.message;
    task.status = update.status;
    if (!task.contextId && update.contextId) task.contextId = update.contextId;
    // Like the SDK's TaskManager: the previous status message becomes history when the status moves on.
    if (previous && !statusMessageInHistory(task.history, previous, update.status.message, this.historyLimit)) this.appendHistory(task, previous);
    // Struct MergeFrom: top-level keys of the update replace the task's.
    if (update.metadata) task.metadata = withFields(task.metadata, update.metadata);
  }

  private artifact(update: TaskArtifactUpdateEvent): void {
    const task = this.own(update);
    const incoming = update.artifact;
    const index = (task.artifacts ?? []).findIndex((artifact) => artifact.artifactId === incoming.artifactId);
    // A chunk to append to an artifact we never saw: the SDKs drop it, and so do we.
    if (update.append && index < 0) return;
    if (!this.ownArtifacts) {
      task.artifacts = [...(task.artifacts ?? [])];
      this.ownArtifacts = true;
    }
    const artifacts = task.artifacts!;
    if (!update.append) {
      if (index >= 0) artifacts[index] = incoming;
      else artifacts.push(incoming);
    } else {
      let existing = artifacts[index] as Artifact;
      if (!this.ownParts?.has(existing)) {
        existing = withFields(existing, { parts: [...existing.parts] });
        artifacts[index] = existing;
        (this.ownParts ??= new Set()).add(existing);
      }
      existing.parts.push(...incoming.parts);
      if (incoming.metadata) existing.metadata = withFields(existing.metadata, incoming.metadata);
    }
    // Its metadata joins the task's, as a status update's does (a2a-js 1.x records both so).
    if (update.metadata) task.metadata = withFields(task.metadata, update.metadata);
  }

  private message(message: Message): boolean {
    if (!this.task || message.taskId !== this.task.id) return false;
    this.appendHistory(this.own({ taskId: this.task.id }), message);
    return true;
  }
}

/**
 * Keep at most the last `limit` history entries (0 keeps none), a history past it with each run of one agent
 * message's chunks merged first (merged-runs.ts), and of the caller's messages among them no raw part past
 * `partMaxBytes` (history-parts.ts).
 */
export function boundHistory(task: Task, limit: number, partMaxBytes = Infinity): Task {
  const history = task.history;
  if (!history || history.length <= limit) return withoutLargeUserParts(task, partMaxBytes);
  if (limit <= 0) {
    const { history: _dropped, ...rest } = task;
    return rest;
  }
  return withoutLargeUserParts(withFields(task, { history: cutHistory(history, limit) }), partMaxBytes);
}

/** What a write keeps of a history past `limit`: its runs merged (merged-runs.ts), then its last `limit` messages. */
function cutHistory(history: readonly Message[], limit: number): Message[] {
  const merged = withRunsMerged(history);
  if (merged && merged.length <= limit) return merged;
  const whole = merged ?? history;
  return whole.slice(whole.length - limit);
}

/** An update for a task we never saw a snapshot of (0.2.5 agents may start with one): start a task for it. */
function seedTask(taskId: string, contextId: string | undefined): Task {
  return contextId ? { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } } : { id: taskId, status: { state: 'TASK_STATE_SUBMITTED' } };
}

function foldStatus(current: Task | undefined, update: TaskStatusUpdateEvent, historyLimit: number): Task {
  const base = current ?? seedTask(update.taskId, update.contextId);
  // Like the SDK's TaskManager: the previous status message becomes history when the status moves on.
  const previous = base.status.message;
  const moved = previous && !statusMessageInHistory(base.history, previous, update.status.message, historyLimit);
  const history = moved ? [...(base.history ?? []), previous] : base.history;
  // Struct MergeFrom: top-level keys of the update replace the task's.
  const metadata = update.metadata ? withFields(base.metadata, update.metadata) : base.metadata;
  const next: Task = withFields(base, { status: update.status });
  if (!next.contextId && update.contextId) next.contextId = update.contextId;
  if (history) next.history = history;
  if (metadata) next.metadata = metadata;
  return boundHistory(next, historyLimit);
}

function foldArtifact(current: Task | undefined, update: TaskArtifactUpdateEvent): Task {
  const base = current ?? seedTask(update.taskId, update.contextId);
  const artifacts = base.artifacts ?? [];
  const incoming = update.artifact;
  const index = artifacts.findIndex((artifact) => artifact.artifactId === incoming.artifactId);
  let nextArtifacts: Artifact[];
  if (!update.append) {
    nextArtifacts = index >= 0 ? artifacts.map((artifact, i) => (i === index ? incoming : artifact)) : [...artifacts, incoming];
  } else if (index >= 0) {
    const existing = artifacts[index] as Artifact;
    const merged: Artifact = withFields(existing, { parts: [...existing.parts, ...incoming.parts] });
    if (incoming.metadata) merged.metadata = withFields(existing.metadata, incoming.metadata);
    nextArtifacts = artifacts.map((artifact, i) => (i === index ? merged : artifact));
  } else {
    // A chunk to append to an artifact we never saw: the SDKs drop it, and so do we.
    return base;
  }
  const next = withFields(base, { artifacts: nextArtifacts });
  if (update.metadata) next.metadata = withFields(base.metadata, update.metadata);
  return next;
}

function foldMessage(current: Task | undefined, message: Message, historyLimit: number): Task | undefined {
  if (!current || message.taskId !== current.id) return undefined;
  return boundHistory(withFields(current, { history: [...(current.history ?? []), message] }), historyLimit);
}

import { withFields, type Artifact, type Message, type Part, type StreamResponse, type Task, type TaskStatusUpdateEvent } from '../../model/index.js';
import { isAssistantFinal } from './events.js';
import { metadataRelative } from './workspace-path-metadata.js';
import { FolderInText, RelativeTextStream } from './workspace-paths.js';

/**
 * The agent's words about its conversation's workspace made relative to it (workspace-paths.ts), wherever
 * iac-code puts words a caller reads: its streamed text chunks, status messages (its restatement, a
 * failure's reason), a permission prompt's question, artifacts' text, and a task's history and status.
 * Here, in front of the core, so that a 1.0 caller and the 0.2.5 facade (message/send and message/stream
 * alike, one reducer) read the same words, and the core's scrubbing of a failure's reason sees `main.tf`,
 * no longer a local path.
 */

/** The folder a conversation works in (workspaceOf), by its context id. */
export type FolderOf = (contextId: string) => string;

const textOf = (part: Part): string | undefined => (typeof part.text === 'string' ? part.text : undefined);

function partsRelative(parts: Part[], relative: (text: string) => string): Part[] {
  let changed = false;
  const next = parts.map((part) => {
    const text = textOf(part);
    const made = text === undefined ? text : relative(text);
    if (made === text) return part;
    changed = true;
    return withFields(part, { text: made });
  });
  return changed ? next : parts;
}

function messageRelative(message: Message, folder: FolderInText): Message {
  if (message.role !== 'ROLE_AGENT') return message;
  const parts = partsRelative(message.parts, (text) => folder.relative(text));
  return parts === message.parts ? message : withFields(message, { parts });
}

function artifactRelative(artifact: Artifact, folder: FolderInText): Artifact {
  const parts = partsRelative(artifact.parts, (text) => folder.relative(text));
  return parts === artifact.parts ? artifact : withFields(artifact, { parts });
}

function statusRelative(event: TaskStatusUpdateEvent, folder: FolderInText): TaskStatusUpdateEvent {
  const { message } = event.status;
  const relative = message ? messageRelative(message, folder) : message;
  const metadata = metadataRelative(event.metadata, folder);
  if (relative === message && metadata === event.metadata) return event;
  const status = relative === message ? event.status : withFields(event.status, { message: relative });
  return withFields(event, withFields({ status }, metadata ? { metadata } : {}));
}

/**
 * The history's agent messages: iac-code's SDK keeps every streamed chunk as a message of its own, one id
 * for the chunks of a turn, so a path may be split between two of them. Each run of one id is read as the
 * stream was; what the last chunk of a run held back ends that chunk. Every message keeps its place (the
 * facade's recovery reads them in order: turn-rest.ts), and so does its text: what a chunk held and the next one
 * shows was not the folder's path goes back to the end of the chunk it came from. The stream told it there
 * too when a tool call came between (the history does not show one), and a message's text must not change
 * when the next one comes: the facade's recovery reads the task more than once, and matches what the
 * caller was shown against it.
 */
function historyRelative(history: Message[], folder: FolderInText): Message[] {
  const next = history.slice();
  let stream: RelativeTextStream | undefined;
  let runId: string | undefined;
  let lastInRun = -1;
  /** Which messages the characters the stream holds came from, in order (a hold may span several chunks). */
  let origins: Origin[] = [];
  /** `text` handed back to the messages it came from, per `from`; those of message `keep` stay with the caller. */
  const giveBack = (text: string, from: Origin[], keep: number): string => {
    let at = 0;
    for (const { index, length } of from) {
      if (index === keep) return text.slice(at);
      next[index] = appended(next[index]!, text.slice(at, at + length));
      at += length;
    }
    return text.slice(at);
  };
  const endRun = (): void => {
    if (stream?.holding && lastInRun >= 0) {
      const held = stream.held;
      const told = stream.end();
      // Not the folder after all: each piece goes back where it came from, as when a later chunk tells so.
      if (told === held) giveBack(held, origins, -1);
      else next[lastInRun] = appended(next[lastInRun]!, told);
    }
    stream = undefined;
    runId = undefined;
    lastInRun = -1;
    origins = [];
  };
  history.forEach((message, index) => {
    if (message.role !== 'ROLE_AGENT' || message.messageId !== runId) endRun();
    if (message.role !== 'ROLE_AGENT') return;
    runId = message.messageId;
    stream ??= new RelativeTextStream(folder);
    const live = stream;
    const parts = partsRelative(message.parts, (text) => {
      const held = live.held;
      const told = live.push(text);
      const from = [...origins, { index, length: text.length }];
      origins = lastOrigins(from, live.held.length);
      // What a chunk held and this one shows was not the folder's path goes back to the chunk it came from.
      return held !== '' && told.startsWith(held) ? giveBack(held, from, index) + told.slice(held.length) : told;
    });
    if (message.parts.some((part) => textOf(part) !== undefined)) lastInRun = index;
    if (parts !== message.parts) next[index] = withFields(message, { parts });
  });
  endRun();
  return next.some((message, index) => message !== history[index]) ? next : history;
}

/** A run of characters one message gave to what the stream holds. */
interface Origin {
  index: number;
  length: number;
}

/** The origins of the last `length` characters of `origins`' text. */
function lastOrigins(origins: readonly Origin[], length: number): Origin[] {
  const kept: Origin[] = [];
  let left = length;
  for (let at = origins.length - 1; at >= 0 && left > 0; at--) {
    const { index, length: given } = origins[at]!;
    kept.unshift({ index, length: Math.min(given, left) });
    left -= given;
  }
  return kept;
}

/** `tail` added to the message's last text part. */
function appended(message: Message, tail: string): Message {
  const last = message.parts.findLastIndex((part) => textOf(part) !== undefined);
  const parts = message.parts.map((part, at) => (at === last ? withFields(part, { text: `${textOf(part)}${tail}` }) : part));
  return withFields(message, { parts });
}

/** A task with its agent's words made relative to its conversation's folder; the same object when nothing names it. */
export function taskRelative(task: Task, folderOf: FolderOf): Task {
  if (task.contextId === undefined) return task;
  const folder = new FolderInText(folderOf(task.contextId));
  const { message } = task.status;
  const statusMessage = message ? messageRelative(message, folder) : message;
  const history = task.history ? historyRelative(task.history, folder) : task.history;
  const artifacts = task.artifacts?.map((artifact) => artifactRelative(artifact, folder));
  const artifactsChanged = artifacts?.some((artifact, at) => artifact !== task.artifacts![at]) === true;
  const metadata = metadataRelative(task.metadata, folder);
  if (statusMessage === message && history === task.history && !artifactsChanged && metadata === task.metadata) return task;
  return withFields(
    task,
    withFields(
      { status: statusMessage === message ? task.status : withFields(task.status, { message: statusMessage }) },
      withFields(history ? { history } : {}, withFields(artifactsChanged ? { artifacts } : {}, metadata ? { metadata } : {})),
    ),
  );
}

/** A direct message reply (iac-code sends none in normal mode; an agent behind the same root might). */
export function messageRelativeOf(message: Message, folderOf: FolderOf): Message {
  return message.contextId === undefined ? message : messageRelative(message, new FolderInText(folderOf(message.contextId)));
}

/** A working status message that is not iac-code's restatement: a chunk of the agent's running text. */
function isChunk(update: TaskStatusUpdateEvent): boolean {
  const { message, state } = update.status;
  return state === 'TASK_STATE_WORKING' && message?.role === 'ROLE_AGENT' && !isAssistantFinal(update.metadata);
}

/**
 * The events of one stream. A working status message that is not iac-code's restatement is a chunk of
 * running text: its last characters are held when they could begin the folder's path, and told with the
 * next chunk of the same message. Any other event ends the message first: what it held goes out as one
 * more working chunk under the message's id, right before that event (so the text before a tool call,
 * a file or the turn's end is whole where it belongs). A stream that ends without such an event drops
 * what was held: it was the start of a path, the rest never came, and the task read after tells it.
 */
export class RelativeEvents {
  #folder: FolderInText | undefined;
  #contextId: string | undefined;
  /** The running message: its text so far as one stream, and its last chunk (the template of the event that tells what it held). */
  #running: { stream: RelativeTextStream; last: TaskStatusUpdateEvent } | undefined;

  constructor(private readonly folderOf: FolderOf) {}

  /** The events to send for `event`, in order: usually `[event]` itself, changed or not. */
  next(event: StreamResponse): StreamResponse[] {
    if ('statusUpdate' in event && isChunk(event.statusUpdate)) return this.#chunk(event.statusUpdate);
    const before = this.#ended();
    const told = this.#whole(event);
    return before ? [before, told] : [told];
  }

  #chunk(update: TaskStatusUpdateEvent): StreamResponse[] {
    const message = update.status.message!;
    const running = this.#running;
    const same = running?.last.status.message!.messageId === message.messageId && running.last.contextId === update.contextId;
    const before = same ? undefined : this.#ended();
    const stream = same ? running.stream : new RelativeTextStream(this.#folderFor(update.contextId));
    this.#running = { stream, last: update };
    const parts = partsRelative(message.parts, (text) => stream.push(text));
    const told: StreamResponse = {
      statusUpdate:
        parts === message.parts ? update : withFields(update, { status: withFields(update.status, { message: withFields(message, { parts }) }) }),
    };
    return before ? [before, told] : [told];
  }

  /** The running message is over: what it held, as one more working chunk of it, if it held anything. */
  #ended(): StreamResponse | undefined {
    const running = this.#running;
    this.#running = undefined;
    if (!running?.stream.holding) return undefined;
    const { last, stream } = running;
    const status = { state: last.status.state, message: withFields(last.status.message, { parts: [{ text: stream.end() }] }) };
    return { statusUpdate: withFields(last, { status }) };
  }

  #whole(event: StreamResponse): StreamResponse {
    if ('statusUpdate' in event) {
      const update = statusRelative(event.statusUpdate, this.#folderFor(event.statusUpdate.contextId));
      return update === event.statusUpdate ? event : { statusUpdate: update };
    }
    if ('artifactUpdate' in event) {
      const { artifact } = event.artifactUpdate;
      const relative = artifactRelative(artifact, this.#folderFor(event.artifactUpdate.contextId));
      return relative === artifact ? event : { artifactUpdate: withFields(event.artifactUpdate, { artifact: relative }) };
    }
    if ('task' in event) {
      const task = taskRelative(event.task, this.folderOf);
      return task === event.task ? event : { task };
    }
    const message = messageRelativeOf(event.message, this.folderOf);
    return message === event.message ? event : { message };
  }

  /** The folder of the stream's conversation, made once (a stream is one task's). */
  #folderFor(contextId: string): FolderInText {
    if (this.#folder && this.#contextId === contextId) return this.#folder;
    this.#contextId = contextId;
    return (this.#folder = new FolderInText(this.folderOf(contextId)));
  }
}

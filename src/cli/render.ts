import { isAssistantFinal, isToolEvent } from '../upstream/iac-code/events.js';
import {
  conversation,
  sameMessage,
  withFields,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
} from '../model/index.js';

/** What a person reads of a part: its text, or one line saying what else it is. */
export function partText(part: Part): string {
  if (part.text !== undefined) return part.text;
  const name = part.filename ? ` ${part.filename}` : '';
  const type = part.mediaType ? ` (${part.mediaType})` : '';
  if (part.url !== undefined) return `[file${name}${type}: ${part.url}]`;
  if (part.raw !== undefined) return `[file${name}${type}, ${Math.floor((part.raw.length * 3) / 4)} bytes]`;
  return `[data${type}: ${JSON.stringify(part.data)}]`;
}

const textOf = (parts: readonly Part[]): string => parts.map(partText).join('');

/** A message's parts as read: text runs on, a file or data part stands on a line of its own. */
function messageText(parts: readonly Part[]): string {
  let text = '';
  parts.forEach((part, i) => {
    const apart = i > 0 && (part.text === undefined || parts[i - 1]!.text === undefined);
    text += `${apart && !text.endsWith('\n') ? '\n' : ''}${partText(part)}`;
  });
  return text;
}

/** The text parts alone: files and data are listed in the summary. */
const wordsOf = (parts: readonly Part[]): string => textOf(parts.filter((part) => part.text !== undefined));

/** Text compared as read: the line breaks the printer puts between messages are not the agent's words. */
const squashed = (text: string): string => text.replace(/\s+/g, ' ').trim();

const WORD_CHAR = /[\p{L}\p{N}]/u;
/** Words start at `at` in `text`: not inside one (the `6` of `(1-6)` is not an answer `6`, nor `Yes` of `Yesterday`). */
const wordStart = (text: string, at: number): boolean => at === 0 || !WORD_CHAR.test(text[at - 1]!) || !WORD_CHAR.test(text[at] ?? '');

/** `said` ends with `text`'s words, whole words: an artifact or closing message saying again what was just shown. */
function endsWithWords(said: string, text: string): boolean {
  const [whole, end] = [squashed(said), squashed(text)];
  return whole.endsWith(end) && wordStart(whole, whole.length - end.length);
}

/** `said` holds words that `text` (an artifact not whole yet) begins: it may still turn out to end what was shown. */
function mayEndWithWords(said: string, text: string): boolean {
  const [whole, start] = [squashed(said), squashed(text)];
  for (let at = whole.indexOf(start); at >= 0; at = whole.indexOf(start, at + 1)) if (wordStart(whole, at)) return true;
  return false;
}

/** The agent messages of a task's latest turn (after its last user message), each said once. */
function latestTurn(history: readonly Message[]): Message[] {
  const messages = conversation(history);
  const lastUser = messages.findLastIndex((message) => message.role === 'ROLE_USER');
  const said = messages.slice(lastUser + 1).filter((message) => message.role === 'ROLE_AGENT' && !isAssistantFinal(message.metadata));
  // iac-code's restatement of its last words under an id of its own, without the metadata that tells it.
  return said.filter((message, i) => i === 0 || textOf(message.parts) !== textOf(said[i - 1]!.parts));
}

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export const stateName = (state: TaskState): string =>
  state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

/** A spinner on stderr while nothing has arrived yet; only on a terminal, so pipes and logs stay clean. */
export function spinner(stream: NodeJS.WriteStream = process.stderr): { stop(): void } {
  if (!stream.isTTY) return { stop() {} };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  const timer = setInterval(() => stream.write(`\r${frames[i++ % frames.length]} waiting for the agent…`), 80);
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write('\r\x1b[K');
    },
  };
}

/** The end of a turn as one summary: ids, final state, and the artifacts. */
export interface TurnSummary {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  artifacts: Map<string, Artifact>;
  message?: Message;
  /** Why a turn failed, was rejected or canceled (its status message). */
  reason?: string;
}

const UNSUCCESSFUL: ReadonlySet<TaskState> = new Set(['TASK_STATE_FAILED', 'TASK_STATE_REJECTED', 'TASK_STATE_CANCELED']);
/** States after which the turn goes on: a status message in one is not the agent's closing word. */
const STILL_WORKING: ReadonlySet<TaskState> = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']);

/**
 * Prints a stream as it arrives. The reply's words come as agent status messages (each a chunk, all
 * printed in order; iac-code's `assistantFinal` repeat is skipped) or, from agents that stream nothing
 * else, as artifacts and direct messages. An artifact's text after streamed status text starts on a line of
 * its own once it is more than the last words shown (whole words: `6` after `(1-6)...` is said), and streams
 * on from there, one artifact at a time (the others' chunks wait for its last one, or the next status): an
 * agent that says "Working on it..." and answers in an artifact shows both, one that streams its reply and
 * files the same words as an artifact shows them once. After artifacts' text, the status message that ends
 * the turn follows on a line of its own unless the text shown already ends with it (an a2a-js agent that answers in an artifact and closes with a
 * word of its own: the facade shows both, docs/facade-reply.md). A blocking answer (one
 * `task` event) prints its artifacts' text and its status message the same way, else the agent messages
 * of its history's latest turn (files only in the summary).
 */
export function createStreamPrinter(write: (text: string) => void) {
  const summary: TurnSummary = { artifacts: new Map() };
  let streamedText = false;
  let wroteAny = false;
  let lastNewline = true;
  /** What stdout shows of the reply so far, for a closing status message that would only say it again. */
  let shown = '';
  /** Some artifact's text is on stdout: a closing status message saying it again is not shown. */
  let artifactShown = false;
  /** Artifacts' text after streamed status text not on stdout yet, by artifactId; `whole` once its last chunk came. */
  const held = new Map<string, { text: string; whole: boolean }>();
  /** The artifact after streamed status text whose chunks go to stdout as they come. */
  let live: string | undefined;
  const alreadyShown = (text: string): boolean => endsWithWords(shown, text);
  const out = (text: string) => {
    if (!text) return;
    wroteAny = true;
    shown += text;
    lastNewline = text.endsWith('\n');
    write(text);
  };

  function noteTask(task: Task): void {
    summary.taskId = task.id;
    summary.contextId = task.contextId ?? summary.contextId;
    summary.state = task.status.state;
    for (const artifact of task.artifacts ?? []) summary.artifacts.set(artifact.artifactId, artifact);
  }

  // Another message, or text after a tool call or an artifact, starts on a new line (as the facade shows it).
  let lastMessageId: string | undefined;
  let breakPending = false;

  function agentText(message: Message | undefined, updateMetadata?: Record<string, unknown>, endsTurn = false): void {
    if (!message || message.role !== 'ROLE_AGENT' || isAssistantFinal(updateMetadata) || isAssistantFinal(message.metadata)) return;
    const afterArtifacts = wroteAny && !streamedText;
    if (afterArtifacts && !endsTurn) return;
    const text = textOf(message.parts);
    if (!text || (endsTurn && artifactShown && alreadyShown(text))) return;
    if (afterArtifacts) breakPending = true;
    const newMessage = lastMessageId !== undefined && message.messageId !== lastMessageId;
    if (wroteAny && !lastNewline && (breakPending || newMessage)) out('\n');
    breakPending = false;
    lastMessageId = message.messageId;
    streamedText = true;
    out(text);
  }

  /** An artifact's chunk after streamed status text. */
  function laterArtifact(artifactId: string, words: string, append: boolean, lastChunk: boolean): void {
    if (live === artifactId && append) {
      out(words);
      if (lastChunk) live = undefined;
    } else {
      const prior = append ? held.get(artifactId)?.text : undefined;
      held.set(artifactId, { text: (prior ?? '') + words, whole: lastChunk });
      if (live === artifactId) live = undefined;
    }
    if (live === undefined) showHeld(false);
  }

  /**
   * Shows the held artifacts that say something not shown yet, each from a line of its own; one not whole goes
   * on live. `ending` (a status, a message, the end): each shows what it has, and nothing stays live, so what
   * is said next starts on a line of its own; an artifact that only said again what was shown is dropped once
   * whole or at the end of the turn (`over`). One not whole whose words so far were shown stays held: its next
   * chunks tell whether it repeats them.
   */
  function showHeld(ending: boolean, over = false): void {
    if (ending) live = undefined;
    for (const [id, { text, whole }] of held) {
      if (live !== undefined) return;
      if (whole || over ? alreadyShown(text) : mayEndWithWords(shown, text)) {
        if (whole || over) held.delete(id);
        continue;
      }
      held.delete(id);
      if (!lastNewline) out('\n');
      out(text);
      artifactShown = true;
      breakPending = true;
      if (!whole && !ending) live = id;
    }
  }

  // A turn that failed, was rejected or canceled prints what it said as a streamed one does (the facade's
  // `bailian` profile puts all of it, the reason too, in its reply artifact); its status message is the reason.
  function blockingAnswer(task: Task): void {
    // Files are listed in the summary; a reply of files alone reads as the agent messages of its history.
    const artifacts = (task.artifacts ?? [])
      .map((artifact) => wordsOf(artifact.parts))
      .filter(Boolean)
      .join('\n');
    out(artifacts);
    if (artifacts) artifactShown = true;
    const closing = task.status.message;
    if (UNSUCCESSFUL.has(task.status.state)) summary.reason = closing && textOf(closing.parts);
    else if (closing?.role === 'ROLE_AGENT') return agentText(closing, undefined, true);
    if (artifacts) return;
    // The closing status message is also the history's last (the reason, told apart); iac-code's chunks before it
    // share its id, and are what the turn said. iac-code gives every turn's chunks that id: the turns before are
    // the task's earlier answers, not this one.
    const history = task.history ?? [];
    const told = sameMessage(history.at(-1), closing) ? history.slice(0, -1) : history;
    out(
      latestTurn(told)
        .map((message) => textOf(message.parts))
        .join(''),
    );
  }

  return {
    summary,
    event(event: StreamResponse): void {
      if ('task' in event) {
        const first = summary.taskId === undefined;
        noteTask(event.task);
        // The first event of a stream is the task just submitted: nothing of the reply yet.
        if (first && event.task.status.state !== 'TASK_STATE_SUBMITTED') blockingAnswer(event.task);
      } else if ('message' in event) {
        showHeld(true);
        summary.message = event.message;
        summary.contextId = event.message.contextId ?? summary.contextId;
        if (!streamedText) out(messageText(event.message.parts));
      } else if ('statusUpdate' in event) {
        showHeld(true);
        const update = event.statusUpdate;
        summary.taskId = update.taskId;
        summary.contextId = update.contextId;
        summary.state = update.status.state;
        if (UNSUCCESSFUL.has(update.status.state)) summary.reason = update.status.message && textOf(update.status.message.parts);
        else agentText(update.status.message, update.metadata, !STILL_WORKING.has(update.status.state));
        if (isToolEvent(update.metadata)) breakPending = true;
      } else {
        const { artifact, append, lastChunk, taskId, contextId } = event.artifactUpdate;
        summary.taskId = taskId;
        summary.contextId = contextId;
        const prior = summary.artifacts.get(artifact.artifactId);
        summary.artifacts.set(artifact.artifactId, append && prior ? withFields(prior, { parts: [...prior.parts, ...artifact.parts] }) : artifact);
        if (streamedText) return laterArtifact(artifact.artifactId, wordsOf(artifact.parts), append === true, lastChunk === true);
        out(textOf(artifact.parts));
        artifactShown = true;
        breakPending = true;
      }
    },
    /** Ends the streamed text with a newline, so the summary starts on its own line. */
    finish(): void {
      showHeld(true, true);
      if (wroteAny && !lastNewline) write('\n');
    },
  };
}

/** The lines printed after the turn: state, ids for a follow-up, and each artifact. */
export function summaryLines(summary: TurnSummary): string[] {
  const lines: string[] = [];
  if (summary.state) lines.push(`state: ${stateName(summary.state)}${summary.reason ? ` (${summary.reason})` : ''}`);
  else if (summary.message) lines.push('state: message (the agent answered without a task)');
  if (summary.taskId) lines.push(`task: ${summary.taskId}`);
  if (summary.contextId) lines.push(`context: ${summary.contextId}`);
  for (const artifact of summary.artifacts.values()) {
    const label = artifact.name ? `${artifact.name} (${artifact.artifactId})` : artifact.artifactId;
    const files = artifact.parts.filter((part) => part.text === undefined).map(partText);
    lines.push(`artifact: ${label}${files.length ? ` ${files.join(' ')}` : ''}`);
  }
  return lines;
}

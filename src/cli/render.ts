import { isAssistantFinal, isToolEvent } from '../upstream/iac-code/events.js';
import { withFields, type Artifact, type Message, type Part, type StreamResponse, type Task, type TaskState } from '../model/index.js';

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
 * else, as artifacts and direct messages. Artifacts after streamed text only show in the summary, so
 * no text appears twice. After artifacts' text, the status message that ends the turn follows on a line
 * of its own unless the text shown already holds it (an a2a-js agent that answers in an artifact and
 * closes with a word of its own: the facade shows both, docs/facade-reply.md). A blocking answer (one
 * `task` event) prints its artifacts' text and its status message the same way, else the agent messages
 * of its history (files only in the summary).
 */
export function createStreamPrinter(write: (text: string) => void) {
  const summary: TurnSummary = { artifacts: new Map() };
  let streamedText = false;
  let wroteAny = false;
  let lastNewline = true;
  /** What stdout shows of the reply so far, for a closing status message that would only say it again. */
  let shown = '';
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
    if (!text || (afterArtifacts && shown.includes(text.trim()))) return;
    if (afterArtifacts) breakPending = true;
    const newMessage = lastMessageId !== undefined && message.messageId !== lastMessageId;
    if (wroteAny && !lastNewline && (breakPending || newMessage)) out('\n');
    breakPending = false;
    lastMessageId = message.messageId;
    streamedText = true;
    out(text);
  }

  // A turn that failed, was rejected or canceled prints what it said as a streamed one does (the facade's
  // `bailian` profile puts all of it, the reason too, in its reply artifact); its status message is the reason.
  function blockingAnswer(task: Task): void {
    // Files are listed in the summary; a reply of files alone reads as the agent messages of its history.
    const artifacts = (task.artifacts ?? [])
      .map((artifact) => textOf(artifact.parts.filter((part) => part.text !== undefined)))
      .filter(Boolean)
      .join('\n');
    out(artifacts);
    const closing = task.status.message;
    if (UNSUCCESSFUL.has(task.status.state)) summary.reason = closing && textOf(closing.parts);
    else if (closing?.role === 'ROLE_AGENT') return agentText(closing, undefined, true);
    if (artifacts) return;
    const said = (message: Message): boolean =>
      message.role === 'ROLE_AGENT' && !isAssistantFinal(message.metadata) && message.messageId !== closing?.messageId;
    out(
      (task.history ?? [])
        .filter(said)
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
        summary.message = event.message;
        summary.contextId = event.message.contextId ?? summary.contextId;
        if (!streamedText) out(textOf(event.message.parts));
      } else if ('statusUpdate' in event) {
        const update = event.statusUpdate;
        summary.taskId = update.taskId;
        summary.contextId = update.contextId;
        summary.state = update.status.state;
        if (UNSUCCESSFUL.has(update.status.state)) summary.reason = update.status.message && textOf(update.status.message.parts);
        else agentText(update.status.message, update.metadata, !STILL_WORKING.has(update.status.state));
        if (isToolEvent(update.metadata)) breakPending = true;
      } else {
        const { artifact, append, taskId, contextId } = event.artifactUpdate;
        summary.taskId = taskId;
        summary.contextId = contextId;
        const prior = summary.artifacts.get(artifact.artifactId);
        summary.artifacts.set(artifact.artifactId, append && prior ? withFields(prior, { parts: [...prior.parts, ...artifact.parts] }) : artifact);
        if (!streamedText) out(textOf(artifact.parts));
        breakPending = true;
      }
    },
    /** Ends the streamed text with a newline, so the summary starts on its own line. */
    finish(): void {
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

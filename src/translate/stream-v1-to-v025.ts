import { randomUUID } from 'node:crypto';
import {
  endsTurn,
  isActiveState,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../model/index.js';
import type { MappingProfile } from '../mappings/index.js';
import {
  isV025FinalState,
  type V025Artifact,
  type V025StreamEvent,
  type V025Task,
  type V025TaskArtifactUpdateEvent,
  type V025TaskStatusUpdateEvent,
} from '../protocol/v025/index.js';
import { defined, joinText, systemClock, type Clock, type JsonObject } from './common.js';
import { CommandCollector, withoutCommands } from './bailian.js';
import { artifactUpdateToV025 } from './events.js';
import { messageToV025 } from './messages.js';
import { partToV025 } from './parts.js';
import { agentText, finalReplyText, isAssistantFinal, isReplyState, repeatsReply } from './reply-text.js';
import { artifactToV025, statusToV025 } from './tasks.js';

export interface V1ToV025StreamOptions {
  profile: MappingProfile;
  /** 'pass': non-text status updates (tool/usage/thinking metadata) become working status-updates with `final: false`; 'drop': they vanish. */
  upstreamMetadata: 'pass' | 'drop';
  /** Id of the turn's text artifact (and of synthesised messages/tasks); default randomUUID. */
  newArtifactId?: () => string;
  now?: Clock;
  /**
   * Bailian device commands: gathered from every upstream event's metadata (`commands` and
   * `<metadataKey>.commands`) and sent once, on the last artifact-update of the turn (the closing
   * text chunk, or a synthesised empty one) as `artifact.metadata.commands`.
   */
  deviceCommands?: { metadataKey: string };
}

export interface V1ToV025StreamTranslator {
  /** Translate one upstream event; returns the 0.2.5 events to send now (possibly none). */
  push(event: StreamResponse): V025StreamEvent[];
  /** The upstream stream closed: close the text artifact and send the `final: true` status. */
  end(): V025StreamEvent[];
  /**
   * The upstream failed mid-stream: a failed, final status-update carrying `message` (already
   * sanitized). Before the first upstream event there is no task yet and it returns []: answer with a
   * JSON-RPC error instead.
   */
  fail(message: string): V025StreamEvent[];
  /** True once the final status-update (or a direct message) was produced; later input is ignored. */
  readonly done: boolean;
}

/**
 * 1.0 upstream (iac-code) → 0.2.5 caller (Bailian), issue 3's rule:
 *   task(submitted) → artifact-update × n (ONE text artifact per turn, append: true, lastChunk: false)
 *   → the last chunk with lastChunk: true → status-update(mapped state, final: true).
 *
 * Text arrives as WORKING status messages (chunks). The latest chunk is HELD BACK by one event, so
 * the last one can carry `lastChunk: true` exactly like Bailian's documented stream, and a client that
 * joins the chunks gets exactly the reply text. Only when a held chunk had to be flushed early (an
 * upstream artifact or a passed-through metadata event came after it) is the artifact closed by an
 * extra chunk with `text: ""`, which adds nothing to the joined text.
 *
 * iac-code repeats the whole answer at the end of a turn (WORKING, `metadata.iac_code.assistantFinal`,
 * its own messageId): that repeat is skipped when chunks were streamed, and becomes the chunk when
 * none were. A status message equal to everything streamed so far under a different messageId is
 * treated as the same kind of repeat.
 *
 * The reply is never delivered twice (Bailian shows the text of every artifact): an upstream artifact
 * made only of the text streamed so far (the demo agent's `reply.txt`) is not sent, and a reply text
 * equal to an upstream text artifact already sent in full (an agent that streams its reply as an
 * artifact, then repeats it in the final status) is not sent again as the facade's chunk. Upstream
 * artifacts that arrive in several pieces after the text streamed are not recognised.
 */
export function createV1ToV025StreamTranslator(options: V1ToV025StreamOptions): V1ToV025StreamTranslator {
  const { profile, upstreamMetadata } = options;
  const newId = options.newArtifactId ?? randomUUID;
  const now = options.now ?? systemClock;
  const passMetadata = (metadata: JsonObject | undefined) => (upstreamMetadata === 'pass' ? metadata : undefined);
  const commands = options.deviceCommands ? new CommandCollector(options.deviceCommands.metadataKey) : undefined;
  /** Upstream artifacts lose their commands: they travel on the turn's last artifact only. */
  const outboundArtifact = (artifact: Artifact): V025Artifact => {
    const translated = artifactToV025(artifact, profile);
    return commands ? defined({ ...translated, metadata: withoutCommands(translated.metadata, commands.key) }) : translated;
  };

  let taskId = '';
  let contextId = '';
  let started = false;
  let done = false;
  let lastStatus: TaskStatus = { state: 'TASK_STATE_SUBMITTED' };
  // The current turn's text artifact.
  let textArtifactId: string | undefined;
  let streamedText = '';
  let chunkMessageId: string | undefined;
  let heldChunk: string | undefined;
  let sentChunks = 0;
  /** The text of each text-only upstream artifact sent this turn, pieces joined (append). */
  const upstreamTexts = new Map<string, string>();

  function noteUpstreamArtifact(artifact: Artifact, append: boolean): void {
    if (!artifact.parts.every((part) => part.text !== undefined)) {
      upstreamTexts.delete(artifact.artifactId);
      return;
    }
    const before = append ? (upstreamTexts.get(artifact.artifactId) ?? '') : '';
    upstreamTexts.set(artifact.artifactId, before + joinText(artifact.parts));
  }

  /** Whether a reply text that nothing was streamed for yet already went out as an upstream artifact. */
  const deliveredAsArtifact = (text: string): boolean =>
    streamedText === '' && text !== '' && [...upstreamTexts.values()].includes(text);

  /**
   * No history: Bailian does not read it, and iac-code echoes the request's metadata (secrets included)
   * into it. Artifacts repeating `reply` (the text about to be streamed) are left out.
   */
  function taskEvent(task: Task, reply = ''): V025Task {
    const artifacts = (task.artifacts ?? []).filter((artifact) => !repeatsReply(artifact.parts, reply));
    for (const artifact of artifacts) noteUpstreamArtifact(artifact, false);
    return defined({
      kind: 'task' as const,
      id: taskId,
      contextId,
      status: defined({ state: profile.statesToV025[task.status.state], timestamp: task.status.timestamp ?? now() }),
      artifacts: artifacts.length > 0 ? artifacts.map(outboundArtifact) : undefined,
      metadata: passMetadata(task.metadata),
    });
  }

  /** 0.2.5 allows streams that do not start with a Task; Bailian's documented stream always does. */
  function start(ref: { taskId?: string; contextId?: string }, task?: Task, reply?: string): V025StreamEvent[] {
    if (started) return [];
    started = true;
    taskId = ref.taskId || newId();
    contextId = ref.contextId || taskId;
    return [taskEvent(task ?? { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } }, reply)];
  }

  const chunk = (text: string, lastChunk: boolean): V025TaskArtifactUpdateEvent => ({
    kind: 'artifact-update',
    taskId,
    contextId,
    artifact: { artifactId: textArtifactId ?? newId(), parts: [{ kind: 'text', text }] },
    append: true,
    lastChunk,
  });

  function flushHeld(lastChunk: boolean): V025StreamEvent[] {
    if (heldChunk === undefined) return [];
    const event = chunk(heldChunk, lastChunk);
    heldChunk = undefined;
    sentChunks++;
    return [event];
  }

  function addChunk(text: string, messageId: string | undefined): V025StreamEvent[] {
    if (text === '') return [];
    const out = flushHeld(false);
    textArtifactId ??= newId();
    heldChunk = text;
    streamedText += text;
    chunkMessageId = messageId;
    return out;
  }

  function closeText(): V025StreamEvent[] {
    const out = heldChunk !== undefined ? flushHeld(true) : sentChunks > 0 ? [chunk('', true)] : [];
    textArtifactId = undefined;
    streamedText = '';
    chunkMessageId = undefined;
    sentChunks = 0;
    return out;
  }

  const repeatsStreamedText = (text: string, messageId: string | undefined, metadata: JsonObject | undefined): boolean =>
    streamedText !== '' && (isAssistantFinal(metadata) || (text === streamedText && messageId !== chunkMessageId));

  /**
   * Does a turn-ending reply text add to the answer? Yes when nothing was streamed; also when it
   * continues the chunks' own message (iac-code's retryable error text after partial chunks). A final
   * aggregate (new messageId, or assistantFinal, or the same text again) adds nothing.
   */
  const continuesReply = (text: string, messageId: string | undefined, metadata: JsonObject | undefined): boolean =>
    streamedText === '' || (messageId === chunkMessageId && text !== streamedText && !isAssistantFinal(metadata));

  function statusUpdate(status: TaskStatus, final: boolean, metadata: JsonObject | undefined, keepMessage: boolean): V025TaskStatusUpdateEvent {
    const translated = statusToV025(keepMessage ? status : { ...status, message: undefined }, profile, { now });
    return defined({ kind: 'status-update' as const, taskId, contextId, status: translated, final, metadata: passMetadata(metadata) });
  }

  /** The collected commands on the last artifact-update of the turn, synthesising one if the turn has none. */
  function attachCommands(out: V025StreamEvent[]): void {
    if (!commands || commands.empty) return;
    const last = out.at(-1);
    if (last?.kind === 'artifact-update' && last.lastChunk) {
      out[out.length - 1] = { ...last, artifact: { ...last.artifact, metadata: commands.attachTo(last.artifact.metadata) } };
      return;
    }
    out.push({
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: { artifactId: newId(), parts: [{ kind: 'text', text: '' }], metadata: commands.attachTo(undefined) },
      append: true,
      lastChunk: true,
    });
  }

  function collectCommands(event: StreamResponse): void {
    if (!commands) return;
    if ('statusUpdate' in event) {
      commands.add(event.statusUpdate.metadata);
      commands.add(event.statusUpdate.status.message?.metadata);
    } else if ('artifactUpdate' in event) {
      commands.add(event.artifactUpdate.metadata);
      commands.add(event.artifactUpdate.artifact.metadata);
    } else if ('task' in event) {
      commands.add(event.task.metadata);
      commands.add(event.task.status.message?.metadata);
      for (const artifact of event.task.artifacts ?? []) commands.add(artifact.metadata);
    } else if ('message' in event) {
      commands.add(event.message.metadata);
    }
  }

  /** End of the turn: close the text artifact, then the final status. */
  function finish(status: TaskStatus, metadata: JsonObject | undefined): V025StreamEvent[] {
    const out = closeText();
    attachCommands(out);
    // In a reply state the status message is the answer (already streamed or just made the chunk).
    out.push(statusUpdate(status, true, metadata, !isReplyState(status.state)));
    done = true;
    return out;
  }

  const isFinal = (status: TaskStatus): boolean => endsTurn(status.state) || isV025FinalState(profile.statesToV025[status.state]);

  function onStatus(event: TaskStatusUpdateEvent): V025StreamEvent[] {
    const out = start(event);
    const { status, metadata } = event;
    lastStatus = status;
    const text = agentText(status.message);
    if (isFinal(status)) {
      const adds = text !== '' && isReplyState(status.state) && continuesReply(text, status.message?.messageId, metadata);
      if (adds && !deliveredAsArtifact(text)) out.push(...addChunk(text, status.message?.messageId));
      out.push(...finish(status, metadata));
      return out;
    }
    // A non-final state change the caller must see (auth-required in the plain profile), message and all.
    if (!isActiveState(status.state)) {
      out.push(...flushHeld(false), statusUpdate(status, false, metadata, true));
      return out;
    }
    if (text !== '') {
      // Only an end-of-turn aggregate can repeat an artifact; an ordinary chunk is a piece of the reply.
      const repeat = repeatsStreamedText(text, status.message?.messageId, metadata) || (isAssistantFinal(metadata) && deliveredAsArtifact(text));
      if (!repeat) out.push(...addChunk(text, status.message?.messageId));
      return out;
    }
    if (upstreamMetadata === 'pass') out.push(...flushHeld(false), statusUpdate(status, false, metadata, true));
    return out;
  }

  function onArtifact(event: TaskArtifactUpdateEvent): V025StreamEvent[] {
    const out = start(event);
    // The held chunk stays held: the artifact is dropped, nothing came between the chunks.
    if (repeatsReply(event.artifact.parts, streamedText)) return out;
    noteUpstreamArtifact(event.artifact, event.append === true);
    const translated = artifactUpdateToV025(event, profile);
    out.push(...flushHeld(false), defined({ ...translated, artifact: outboundArtifact(event.artifact), metadata: passMetadata(event.metadata) }));
    return out;
  }

  /** A Task first opens the stream; a later turn-ending Task snapshot (or a one-shot finished Task) ends it. */
  function onTask(task: Task): V025StreamEvent[] {
    const reply = isFinal(task.status) ? finalReplyText(task) : '';
    const out = start({ taskId: task.id, contextId: task.contextId }, task, reply);
    lastStatus = task.status;
    if (!isFinal(task.status)) return out;
    if (streamedText === '' && !deliveredAsArtifact(reply)) out.push(...addChunk(reply, undefined));
    return [...out, ...finish(task.status, task.metadata)];
  }

  /** A direct Message reply: a 0.2.5 Message, or (profile option) a one-artifact completed task. */
  function onMessage(message: Message): V025StreamEvent[] {
    if (!started && profile.options.directMessageAs === 'message') {
      done = true;
      return [messageToV025(message, profile)];
    }
    const wasStarted = started;
    const out = start({ taskId: message.taskId, contextId: message.contextId });
    out.push(...addChunk(agentText(message), message.messageId));
    const others = message.parts.filter((part) => part.text === undefined);
    if (others.length > 0) {
      out.push(...flushHeld(false), {
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId: newId(), parts: others.map((part) => partToV025(part, profile)) },
        lastChunk: true,
      });
    }
    // A message after the task started is a 1.0 protocol slip: keep its text, do not end the stream.
    return wasStarted ? out : [...out, ...finish({ state: 'TASK_STATE_COMPLETED' }, undefined)];
  }

  return {
    push(event) {
      if (done) return [];
      collectCommands(event);
      if ('statusUpdate' in event) return onStatus(event.statusUpdate);
      if ('artifactUpdate' in event) return onArtifact(event.artifactUpdate);
      if ('task' in event) return onTask(event.task);
      if ('message' in event) return onMessage(event.message);
      return []; // iac-code's empty `{}` result after a permission answer
    },
    end() {
      if (done || !started) return [];
      return finish(lastStatus, undefined);
    },
    fail(message) {
      if (done || !started) return [];
      const out = closeText();
      const failure: TaskStatus = {
        state: 'TASK_STATE_FAILED',
        message: { messageId: newId(), role: 'ROLE_AGENT', taskId, contextId, parts: [{ text: message }] },
        timestamp: now(),
      };
      out.push(statusUpdate(failure, true, undefined, true));
      done = true;
      return out;
    },
    get done() {
      return done;
    },
  };
}


import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Artifact, Message, SendMessageResponse, Task } from '../model/index.js';
import type { MappingProfile } from '../mappings/index.js';
import type { V025Artifact, V025SendMessageResult, V025Task } from '../protocol/v025/index.js';
import { CommandCollector, withoutCommands } from './bailian.js';
import { defined, type Clock } from './common.js';
import { messageToV025 } from './messages.js';
import { finalReplyText, isReplyState, repeatsReply } from './reply-text.js';
import { artifactToV025, statusToV025 } from './tasks.js';

export interface TaskResultToV025Options {
  now?: Clock;
  /** Id of the reply-text artifact; default randomUUID. */
  newArtifactId?: () => string;
  /** contextId when the 1.0 task has none (the request's, or a stored one). */
  contextId?: string;
  /** 'pass' keeps task.metadata (e.g. metadata.iac_code); default 'drop'. */
  upstreamMetadata?: 'pass' | 'drop';
  /**
   * Bailian device commands: gathered from the task's, its status message's and its artifacts'
   * metadata (`commands` and `<metadataKey>.commands`) and put, once, on the LAST artifact as
   * `metadata.commands` (an empty text artifact is added when the answer has none).
   */
  deviceCommands?: { metadataKey: string };
  /**
   * The task's artifacts before this turn. iac-code keeps every turn's artifacts on the task, so a
   * follow-up turn's answer would otherwise carry the earlier answers too; unchanged ones are left out.
   */
  earlierArtifacts?: readonly Artifact[];
}

/** The artifacts this turn added or changed. */
function artifactsOfThisTurn(task: Task, earlier: readonly Artifact[] = []): Artifact[] {
  const all = task.artifacts ?? [];
  if (earlier.length === 0) return all;
  const before = new Map(earlier.map((artifact) => [artifact.artifactId, artifact]));
  return all.filter((artifact) => !isDeepStrictEqual(before.get(artifact.artifactId), artifact));
}

/** Moves every command onto the last artifact, the one Bailian reads them from. */
function placeCommands(
  task: Task,
  turnArtifacts: readonly Artifact[],
  artifacts: V025Artifact[],
  key: string,
  newId: () => string,
): V025Artifact[] {
  const commands = new CommandCollector(key);
  commands.add(task.metadata);
  commands.add(task.status.message?.metadata);
  for (const artifact of turnArtifacts) commands.add(artifact.metadata);
  if (commands.empty) return artifacts;
  const placed = artifacts.map((artifact) => defined({ ...artifact, metadata: withoutCommands(artifact.metadata, key) }));
  const last: V025Artifact = placed.pop() ?? { artifactId: newId(), parts: [{ kind: 'text', text: '' }] };
  return [...placed, { ...last, metadata: commands.attachTo(last.metadata) }];
}

/**
 * message/send result for a 0.2.5 caller (Bailian): the Task with its state mapped through the
 * profile, a timestamp, and artifacts = the reply text ONCE (see finalReplyText: iac-code's history
 * holds every chunk plus the aggregate) followed by the upstream's own artifacts, minus those that only
 * repeat the reply text (repeatsReply: Bailian would show the answer twice). History is left out:
 * Bailian does not read it, and iac-code echoes request metadata (including secrets) into it. In a
 * reply state the status message IS the answer, so it is only kept on failure-like states.
 */
export function taskResultToV025(task: Task, profile: MappingProfile, options: TaskResultToV025Options = {}): V025Task {
  const newId = options.newArtifactId ?? randomUUID;
  const reply = finalReplyText(task);
  let artifacts: V025Artifact[] = [];
  if (reply !== '') artifacts.push({ artifactId: newId(), parts: [{ kind: 'text', text: reply }] });
  const turnArtifacts = artifactsOfThisTurn(task, options.earlierArtifacts);
  for (const artifact of turnArtifacts) {
    if (!repeatsReply(artifact.parts, reply)) artifacts.push(artifactToV025(artifact, profile));
  }
  if (options.deviceCommands) {
    artifacts = placeCommands(task, turnArtifacts, artifacts, options.deviceCommands.metadataKey, newId);
  }
  const status = isReplyState(task.status.state) ? { ...task.status, message: undefined } : task.status;
  return defined({
    kind: 'task' as const,
    id: task.id,
    contextId: task.contextId || options.contextId || task.id,
    status: statusToV025(status, profile, { now: options.now }),
    artifacts: artifacts.length > 0 ? artifacts : undefined,
    metadata: options.upstreamMetadata === 'pass' ? task.metadata : undefined,
  });
}

/**
 * A direct Message reply seen as the task a task-only caller expects: completed, the message's text
 * as the reply and its other parts as one more artifact.
 */
function messageAsTask(message: Message, contextId: string | undefined, newId: () => string): Task {
  const id = message.taskId || newId();
  const others = message.parts.filter((part) => part.text === undefined);
  return defined({
    id,
    contextId: message.contextId || contextId || id,
    status: { state: 'TASK_STATE_COMPLETED' as const, message },
    artifacts: others.length > 0 ? [{ artifactId: newId(), parts: others }] : undefined,
    metadata: message.metadata,
  });
}

/**
 * The whole 1.0 SendMessage result for a 0.2.5 caller: a Task through taskResultToV025, a direct
 * Message as a 0.2.5 Message or, when the profile says `direct-message-as: task`, as a completed task.
 */
export function sendMessageResultToV025(
  response: SendMessageResponse,
  profile: MappingProfile,
  options: TaskResultToV025Options = {},
): V025SendMessageResult {
  if ('task' in response) return taskResultToV025(response.task, profile, options);
  if (profile.options.directMessageAs === 'message') return messageToV025(response.message, profile);
  const task = messageAsTask(response.message, options.contextId, options.newArtifactId ?? randomUUID);
  return taskResultToV025(task, profile, options);
}

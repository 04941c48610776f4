import { randomUUID } from 'node:crypto';
import type { Task } from '../model/index.js';
import type { MappingProfile } from '../mappings/index.js';
import type { V025Artifact, V025Task } from '../protocol/v025/index.js';
import { defined, type Clock } from './common.js';
import { finalReplyText, isReplyState } from './reply-text.js';
import { artifactToV025, statusToV025 } from './tasks.js';

export interface TaskResultToV025Options {
  now?: Clock;
  /** Id of the reply-text artifact; default randomUUID. */
  newArtifactId?: () => string;
  /** contextId when the 1.0 task has none (the request's, or a stored one). */
  contextId?: string;
  /** 'pass' keeps task.metadata (e.g. metadata.iac_code); default 'drop'. */
  upstreamMetadata?: 'pass' | 'drop';
}

/**
 * message/send result for a 0.2.5 caller (Bailian): the Task with its state mapped through the
 * profile, a timestamp, and artifacts = the reply text ONCE (see finalReplyText: iac-code's history
 * holds every chunk plus the aggregate) followed by the upstream's own artifacts. History is left out:
 * Bailian does not read it, and iac-code echoes request metadata (including secrets) into it. In a
 * reply state the status message IS the answer, so it is only kept on failure-like states.
 */
export function taskResultToV025(task: Task, profile: MappingProfile, options: TaskResultToV025Options = {}): V025Task {
  const reply = finalReplyText(task);
  const artifacts: V025Artifact[] = [];
  if (reply !== '') {
    artifacts.push({ artifactId: (options.newArtifactId ?? randomUUID)(), parts: [{ kind: 'text', text: reply }] });
  }
  for (const artifact of task.artifacts ?? []) artifacts.push(artifactToV025(artifact, profile));
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

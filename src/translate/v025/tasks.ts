import type { Artifact, Task, TaskStatus } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025Artifact, V025Task, V025TaskStatus } from '../../protocol/v025/index.js';
import { defined, systemClock, type Clock } from '../common.js';
import { messageToV025, messageToV1 } from './messages.js';
import { partToV025, partToV1 } from './parts.js';
import { toRfc3339Utc } from '../timestamps.js';

export interface ToV025Options {
  /** Source of the timestamp added when a status has none (Bailian shows it). */
  now?: Clock;
}

export interface TaskToV025Options extends ToV025Options {
  /** contextId to use when the 1.0 task has none (0.2.5 requires one): the request's or a stored one. */
  contextId?: string;
}

export function statusToV1(status: V025TaskStatus, profile: MappingProfile): TaskStatus {
  return defined({
    state: profile.statesFromV025[status.state],
    message: status.message ? messageToV1(status.message, profile) : undefined,
    timestamp: status.timestamp === undefined ? undefined : toRfc3339Utc(status.timestamp),
  });
}

/** Timestamps pass through unchanged; a missing one becomes "now". */
export function statusToV025(status: TaskStatus, profile: MappingProfile, options: ToV025Options = {}): V025TaskStatus {
  return defined({
    state: profile.statesToV025[status.state],
    message: status.message ? messageToV025(status.message, profile) : undefined,
    timestamp: status.timestamp ?? (options.now ?? systemClock)(),
  });
}

export function artifactToV1(artifact: V025Artifact, profile: MappingProfile): Artifact {
  return defined({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: artifact.parts.map((part) => partToV1(part, profile)),
    metadata: artifact.metadata,
    extensions: artifact.extensions,
  });
}

export function artifactToV025(artifact: Artifact, profile: MappingProfile): V025Artifact {
  return defined({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: artifact.parts.map((part) => partToV025(part, profile)),
    metadata: artifact.metadata,
    extensions: artifact.extensions,
  });
}

export function taskToV1(task: V025Task, profile: MappingProfile): Task {
  return defined({
    id: task.id,
    contextId: task.contextId,
    status: statusToV1(task.status, profile),
    artifacts: task.artifacts?.map((artifact) => artifactToV1(artifact, profile)),
    history: task.history?.map((message) => messageToV1(message, profile)),
    metadata: task.metadata,
  });
}

/** A contextId is synthesised when 1.0 left it empty: the given one, else the task id (stable per task). */
export function taskToV025(task: Task, profile: MappingProfile, options: TaskToV025Options = {}): V025Task {
  return defined({
    kind: 'task' as const,
    id: task.id,
    contextId: task.contextId || options.contextId || task.id,
    status: statusToV025(task.status, profile, options),
    artifacts: task.artifacts?.map((artifact) => artifactToV025(artifact, profile)),
    history: task.history?.map((message) => messageToV025(message, profile)),
    metadata: task.metadata,
  });
}

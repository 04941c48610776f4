import { endsTurn, type StreamResponse, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import {
  isV025FinalState,
  type V025StreamEvent,
  type V025TaskArtifactUpdateEvent,
  type V025TaskStatusUpdateEvent,
} from '../../protocol/v025/index.js';
import { defined } from '../common.js';
import { messageToV025, messageToV1 } from './messages.js';
import { artifactToV025, artifactToV1, statusToV025, statusToV1, taskToV025, taskToV1, type ToV025Options } from './tasks.js';

export interface StatusUpdateToV025Options extends ToV025Options {
  /** Default: true when 1.0 ends the turn here or the mapped 0.2.5 state is one a 0.2.5 server marks final. */
  final?: boolean;
}

/** `final` is dropped: in 1.0 only the end of the stream ends it. */
export function statusUpdateToV1(event: V025TaskStatusUpdateEvent, profile: MappingProfile): TaskStatusUpdateEvent {
  return defined({
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusToV1(event.status, profile),
    metadata: event.metadata,
  });
}

export function statusUpdateToV025(
  event: TaskStatusUpdateEvent,
  profile: MappingProfile,
  options: StatusUpdateToV025Options = {},
): V025TaskStatusUpdateEvent {
  const status = statusToV025(event.status, profile, options);
  return defined({
    kind: 'status-update' as const,
    taskId: event.taskId,
    contextId: event.contextId,
    status,
    final: options.final ?? (endsTurn(event.status.state) || isV025FinalState(status.state)),
    metadata: event.metadata,
  });
}

export function artifactUpdateToV1(event: V025TaskArtifactUpdateEvent, profile: MappingProfile): TaskArtifactUpdateEvent {
  return defined({
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: artifactToV1(event.artifact, profile),
    append: event.append,
    lastChunk: event.lastChunk,
    metadata: event.metadata,
  });
}

export function artifactUpdateToV025(event: TaskArtifactUpdateEvent, profile: MappingProfile): V025TaskArtifactUpdateEvent {
  return defined({
    kind: 'artifact-update' as const,
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: artifactToV025(event.artifact, profile),
    append: event.append,
    lastChunk: event.lastChunk,
    metadata: event.metadata,
  });
}

/** One 0.2.5 stream result → the 1.0 StreamResponse wrapper (`kind` → wrapper key). */
export function streamEventToV1(event: V025StreamEvent, profile: MappingProfile): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: taskToV1(event, profile) };
    case 'message':
      return { message: messageToV1(event, profile) };
    case 'status-update':
      return { statusUpdate: statusUpdateToV1(event, profile) };
    case 'artifact-update':
      return { artifactUpdate: artifactUpdateToV1(event, profile) };
  }
}

/**
 * One 1.0 StreamResponse → a 0.2.5 stream result, event by event (push webhooks, plain relays).
 * The Bailian stream shape (the reply as one artifact of text chunks) is the facade's reply reducer's job (src/surfaces/v025/reply).
 */
export function streamResponseToV025(event: StreamResponse, profile: MappingProfile, options: StatusUpdateToV025Options = {}): V025StreamEvent {
  if ('task' in event) return taskToV025(event.task, profile, options);
  if ('message' in event) return messageToV025(event.message, profile);
  if ('statusUpdate' in event) return statusUpdateToV025(event.statusUpdate, profile, options);
  return artifactUpdateToV025(event.artifactUpdate, profile);
}

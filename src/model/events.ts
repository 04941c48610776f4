import { z } from 'zod';
import { JsonObject } from './parts.js';
import { Message } from './message.js';
import { Artifact, Task, TaskStatus, type TaskState } from './task.js';
import { withFields } from './/index.js';

export const TaskStatusUpdateEvent = z.looseObject({
  taskId: z.string(),
  contextId: z.string(),
  status: TaskStatus,
  metadata: JsonObject.optional(),
});
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEvent>;

export const TaskArtifactUpdateEvent = z.looseObject({
  taskId: z.string(),
  contextId: z.string(),
  artifact: Artifact,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: JsonObject.optional(),
});
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEvent>;

/** The four stream wrappers of A2A 1.0 (proto oneof): exactly one key is set. */
export type StreamResponse =
  { task: Task } | { message: Message } | { statusUpdate: TaskStatusUpdateEvent } | { artifactUpdate: TaskArtifactUpdateEvent };

export const StreamResponse: z.ZodType<StreamResponse> = z.union([
  z.object({ task: Task }),
  z.object({ message: Message }),
  z.object({ statusUpdate: TaskStatusUpdateEvent }),
  z.object({ artifactUpdate: TaskArtifactUpdateEvent }),
]);

/** SendMessage result: a task or a direct message, wrapped. */
export type SendMessageResponse = { task: Task } | { message: Message };
export const SendMessageResponse: z.ZodType<SendMessageResponse> = z.union([z.object({ task: Task }), z.object({ message: Message })]);

/** The task state an event or answer reports, if any (a message or an artifact update reports none). */
export function eventTaskState(event: StreamResponse): TaskState | undefined {
  // Defensive on purpose: callers also pass events before the model checked them.
  if ('task' in event && event.task) return event.task.status?.state;
  if ('statusUpdate' in event && event.statusUpdate) return event.statusUpdate.status?.state;
  return undefined;
}

/** taskId and contextId of any stream event, for routing and bookkeeping. */
export function eventTaskRef(event: StreamResponse): { taskId?: string; contextId?: string } {
  if ('task' in event) return { taskId: event.task.id, contextId: event.task.contextId };
  if ('statusUpdate' in event) return { taskId: event.statusUpdate.taskId, contextId: event.statusUpdate.contextId };
  if ('artifactUpdate' in event) return { taskId: event.artifactUpdate.taskId, contextId: event.artifactUpdate.contextId };
  return { taskId: event.message.taskId, contextId: event.message.contextId };
}

/**
 * Task id, context id and state of whatever a port call answered, for log lines and spans: a stream
 * event or SendMessage result (wrapped), a bare Task (GetTask, CancelTask), or nothing task-like.
 */
export function answerTaskRef(result: unknown): { taskId?: string; contextId?: string; state?: TaskState } {
  if (typeof result !== 'object' || result === null) return {};
  if ('task' in result || 'message' in result || 'statusUpdate' in result || 'artifactUpdate' in result) {
    const state = eventTaskState(result as StreamResponse);
    return withFields(eventTaskRef(result as StreamResponse), state ? { state } : {});
  }
  if ('id' in result && 'status' in result) {
    const task = result as Task;
    return { taskId: task.id, contextId: task.contextId, state: task.status.state };
  }
  return {};
}

import { z } from 'zod';
import { V025Role, V025TaskState } from './enums.js';
import { V025JsonObject, V025Part } from './parts.js';

/** Strict on what Bailian requires of a message: kind, role, at least one part, a messageId. */
export const V025Message = z.looseObject({
  kind: z.literal('message'),
  messageId: z.string().min(1, 'messageId is required'),
  role: V025Role,
  parts: z.array(V025Part).min(1, 'parts must contain at least one element'),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  extensions: z.array(z.string()).optional(),
  metadata: V025JsonObject.optional(),
});
export type V025Message = z.infer<typeof V025Message>;

export const V025TaskStatus = z.looseObject({
  state: V025TaskState,
  message: V025Message.optional(),
  /** Loose ISO 8601; producers often omit the zone (the spec's own example does). */
  timestamp: z.string().optional(),
});
export type V025TaskStatus = z.infer<typeof V025TaskStatus>;

export const V025Artifact = z.looseObject({
  artifactId: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(V025Part).min(1),
  metadata: V025JsonObject.optional(),
  extensions: z.array(z.string()).optional(),
});
export type V025Artifact = z.infer<typeof V025Artifact>;

export const V025Task = z.looseObject({
  kind: z.literal('task'),
  id: z.string().min(1),
  contextId: z.string(),
  status: V025TaskStatus,
  artifacts: z.array(V025Artifact).optional(),
  history: z.array(V025Message).optional(),
  metadata: V025JsonObject.optional(),
});
export type V025Task = z.infer<typeof V025Task>;

export const V025TaskStatusUpdateEvent = z.looseObject({
  kind: z.literal('status-update'),
  taskId: z.string(),
  contextId: z.string(),
  status: V025TaskStatus,
  /** Required by the 0.2.5 schema, optional in Bailian's table: read an absent flag as false. */
  final: z.boolean().optional(),
  metadata: V025JsonObject.optional(),
});
export type V025TaskStatusUpdateEvent = z.infer<typeof V025TaskStatusUpdateEvent>;

export const V025TaskArtifactUpdateEvent = z.looseObject({
  kind: z.literal('artifact-update'),
  taskId: z.string(),
  contextId: z.string(),
  artifact: V025Artifact,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: V025JsonObject.optional(),
});
export type V025TaskArtifactUpdateEvent = z.infer<typeof V025TaskArtifactUpdateEvent>;

/** The `result` of one 0.2.5 SSE event: a bare object told apart by `kind`. */
export const V025StreamEvent = z.discriminatedUnion('kind', [V025Task, V025Message, V025TaskStatusUpdateEvent, V025TaskArtifactUpdateEvent]);
export type V025StreamEvent = z.infer<typeof V025StreamEvent>;

/** message/send result: a bare Task or Message. */
export const V025SendMessageResult = z.discriminatedUnion('kind', [V025Task, V025Message]);
export type V025SendMessageResult = z.infer<typeof V025SendMessageResult>;

import { z } from 'zod';
import { V025AgentCapabilities, V025AgentInterface } from '../v025/index.js';

/**
 * Zod schemas of the A2A 0.3 HTTP+JSON binding (`/v1/...`): the ProtoJSON of the 0.3 `a2a.proto`
 * (package a2a.v1), not the `kind`-tagged JSON-RPC objects. Sources: A2A v0.3.0 specification
 * §3.2.3 and `specification/grpc/a2a.proto`; the ts-proto types of a2a-js's v0.3 compat layer
 * (`compat/v0_3/types/pb/a2a.ts`), which is what its 0.3 REST client and server read and write.
 *
 * What an agent sends is read tolerantly where 0.3.x producers differ: a message's parts under
 * `content` (0.3.0) or `parts` (later 0.3.x protos), a file's type as `mimeType` or `mediaType`, a
 * status message as `message` (json_name) or `update` (field name), the message oneof as `message`
 * or `msg`, and enums as names or numbers. ProtoJSON emitters leave out empty fields, so empty
 * lists and strings are optional here.
 */

const Struct = z.record(z.string(), z.unknown());
/** A ProtoJSON enum: its name, or its number. */
export const V03EnumValue = z.union([z.string(), z.number().int()]);

export const V03FilePart = z
  .looseObject({
    fileWithUri: z.string().optional(),
    fileWithBytes: z.string().optional(),
    mimeType: z.string().optional(),
    mediaType: z.string().optional(),
    name: z.string().optional(),
  })
  .refine((file) => (file.fileWithUri === undefined) !== (file.fileWithBytes === undefined), {
    message: 'file must have exactly one of fileWithUri or fileWithBytes',
  });
export type V03FilePart = z.infer<typeof V03FilePart>;

export const V03Part = z
  .looseObject({
    text: z.string().optional(),
    file: V03FilePart.optional(),
    data: z.looseObject({ data: z.unknown() }).optional(),
    metadata: Struct.optional(),
  })
  .refine((part) => [part.text, part.file, part.data].filter((content) => content !== undefined).length === 1, {
    message: 'part must have exactly one of text, file or data',
  });
export type V03Part = z.infer<typeof V03Part>;

export const V03Message = z
  .looseObject({
    messageId: z.string().min(1),
    contextId: z.string().optional(),
    taskId: z.string().optional(),
    role: V03EnumValue.optional(),
    content: z.array(V03Part).optional(),
    parts: z.array(V03Part).optional(),
    metadata: Struct.optional(),
    extensions: z.array(z.string()).optional(),
    referenceTaskIds: z.array(z.string()).optional(),
  })
  .refine((message) => (message.content ?? message.parts ?? []).length > 0, { message: 'message must have at least one part' });
export type V03Message = z.infer<typeof V03Message>;

export const V03TaskStatus = z.looseObject({
  state: V03EnumValue.optional(),
  message: V03Message.optional(),
  update: V03Message.optional(),
  timestamp: z.string().optional(),
});
export type V03TaskStatus = z.infer<typeof V03TaskStatus>;

export const V03Artifact = z.looseObject({
  artifactId: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(V03Part).min(1),
  metadata: Struct.optional(),
  extensions: z.array(z.string()).optional(),
});
export type V03Artifact = z.infer<typeof V03Artifact>;

export const V03Task = z.looseObject({
  id: z.string().min(1),
  contextId: z.string().optional(),
  status: V03TaskStatus,
  artifacts: z.array(V03Artifact).optional(),
  history: z.array(V03Message).optional(),
  metadata: Struct.optional(),
});
export type V03Task = z.infer<typeof V03Task>;

export const V03TaskStatusUpdateEvent = z.looseObject({
  taskId: z.string().min(1),
  contextId: z.string().optional(),
  status: V03TaskStatus,
  final: z.boolean().optional(),
  metadata: Struct.optional(),
});
export type V03TaskStatusUpdateEvent = z.infer<typeof V03TaskStatusUpdateEvent>;

export const V03TaskArtifactUpdateEvent = z.looseObject({
  taskId: z.string().min(1),
  contextId: z.string().optional(),
  artifact: V03Artifact,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: Struct.optional(),
});
export type V03TaskArtifactUpdateEvent = z.infer<typeof V03TaskArtifactUpdateEvent>;

const oneOf = (keys: readonly string[]) => (value: Record<string, unknown>) => keys.filter((key) => value[key] !== undefined).length === 1;

/** `POST /v1/message:send` answers the proto SendMessageResponse: oneof `task` | `msg` (json_name `message`). */
export const V03SendMessageResponse = z
  .looseObject({ task: V03Task.optional(), message: V03Message.optional(), msg: V03Message.optional() })
  .refine(oneOf(['task', 'message', 'msg']), { message: 'response must have exactly one of task or message' });
export type V03SendMessageResponse = z.infer<typeof V03SendMessageResponse>;

/** One SSE `data:` of `/v1/message:stream` and `/v1/tasks/{id}:subscribe`: the proto StreamResponse. */
export const V03StreamResponse = z
  .looseObject({
    task: V03Task.optional(),
    message: V03Message.optional(),
    msg: V03Message.optional(),
    statusUpdate: V03TaskStatusUpdateEvent.optional(),
    artifactUpdate: V03TaskArtifactUpdateEvent.optional(),
  })
  .refine(oneOf(['task', 'message', 'msg', 'statusUpdate', 'artifactUpdate']), {
    message: 'stream event must have exactly one of task, message, statusUpdate or artifactUpdate',
  });
export type V03StreamResponse = z.infer<typeof V03StreamResponse>;

export const V03AuthenticationInfo = z.looseObject({
  schemes: z.array(z.string()).optional(),
  credentials: z.string().optional(),
});
export type V03AuthenticationInfo = z.infer<typeof V03AuthenticationInfo>;

export const V03PushNotificationConfig = z.looseObject({
  id: z.string().optional(),
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: V03AuthenticationInfo.optional(),
});
export type V03PushNotificationConfig = z.infer<typeof V03PushNotificationConfig>;

/** `name` is the resource name `tasks/{taskId}/pushNotificationConfigs/{configId}`. */
export const V03TaskPushNotificationConfig = z.looseObject({
  name: z.string().optional(),
  pushNotificationConfig: V03PushNotificationConfig,
});
export type V03TaskPushNotificationConfig = z.infer<typeof V03TaskPushNotificationConfig>;

/** The proto response object; a bare list is tolerated too. */
export const V03ListTaskPushNotificationConfigResponse = z.union([
  z.looseObject({ configs: z.array(V03TaskPushNotificationConfig).optional(), nextPageToken: z.string().optional() }),
  z.array(V03TaskPushNotificationConfig),
]);
export type V03ListTaskPushNotificationConfigResponse = z.infer<typeof V03ListTaskPushNotificationConfigResponse>;

/** A proto `Security`: scheme name → scopes, wrapped as 1.0 wraps them (`{schemes: {name: {list}}}`). */
const V03Security = z.looseObject({
  schemes: z.record(z.string(), z.looseObject({ list: z.array(z.string()).optional() })).optional(),
});

/**
 * `GET /v1/card`: the proto AgentCard. Unlike the well-known card (0.3 JSON, `type`-tagged security
 * schemes), its security schemes are proto oneofs and its requirements `Security` messages, which
 * is already the 1.0 shape.
 */
export const V03RestAgentCard = z.looseObject({
  protocolVersion: z.string().optional(),
  name: z.string(),
  description: z.string().default(''),
  url: z.string().default(''),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(V025AgentInterface).optional(),
  iconUrl: z.string().optional(),
  provider: z.looseObject({ organization: z.string().default(''), url: z.string().optional() }).optional(),
  version: z.string().default(''),
  documentationUrl: z.string().optional(),
  capabilities: V025AgentCapabilities.default({}),
  securitySchemes: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  security: z.array(V03Security).optional(),
  defaultInputModes: z.array(z.string()).default([]),
  defaultOutputModes: z.array(z.string()).default([]),
  skills: z
    .array(
      z.looseObject({
        id: z.string(),
        name: z.string().default(''),
        description: z.string().default(''),
        tags: z.array(z.string()).default([]),
        examples: z.array(z.string()).optional(),
        inputModes: z.array(z.string()).optional(),
        outputModes: z.array(z.string()).optional(),
        security: z.array(V03Security).optional(),
      }),
    )
    .default([]),
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
  signatures: z.array(z.unknown()).optional(),
});
export type V03RestAgentCard = z.infer<typeof V03RestAgentCard>;

import {
  withFields,
  TASK_STATES,
  partKind,
  type Artifact,
  type Message,
  type Part,
  type Role,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskPushNotificationConfig,
  type TaskState,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../../model/index.js';
import type {
  V03Artifact,
  V03Message,
  V03Part,
  V03PushNotificationConfig,
  V03SendMessageResponse,
  V03StreamResponse,
  V03Task,
  V03TaskArtifactUpdateEvent,
  V03TaskPushNotificationConfig,
  V03TaskStatus,
  V03TaskStatusUpdateEvent,
} from '../../protocol/v03/rest.js';
import { defined, isRecord, type JsonObject } from '../common.js';
import { DATA_PART_COMPAT_KEY, toStandardBase64 } from '../v025/index.js';
import { toRfc3339Utc } from '../timestamps.js';

/**
 * A2A 0.3 HTTP+JSON (proto JSON of the 0.3 a2a.proto) ⇄ A2A 1.0, pure. The two are close: both
 * are ProtoJSON with `TASK_STATE_*`/`ROLE_*` enums and `{task|message|statusUpdate|artifactUpdate}`
 * oneofs. The differences: 0.3 parts nest files and data (`{file: {fileWithUri|fileWithBytes,
 * mimeType}}`, `{data: {data}}`), messages carry parts in `content`, a status update has `final`,
 * the canceled state is spelled CANCELLED, push configs are nested under a resource `name`, and
 * `blocking` is the opposite of 1.0's `returnImmediately`. Lost going to 0.3: the `mediaType` and
 * `filename` of text and data parts (0.3 parts have no such fields).
 */

/** 0.3 TaskState names in proto number order (the numbers are the same in 1.0). */
const V03_TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELLED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
type V03TaskStateName = (typeof V03_TASK_STATES)[number];

/**
 * The state tables. Not in mappings/: those hold the 0.2.5 ⇄ 1.0 profile tables that operators may
 * override, while proto enum names are fixed by the two protos. Both tables follow the proto numbers.
 */
const STATE_FROM_V03: ReadonlyMap<string | number, TaskState> = new Map<string | number, TaskState>([
  ...V03_TASK_STATES.map((name, number): [string, TaskState] => [name, TASK_STATES[number] as TaskState]),
  ...TASK_STATES.map((name, number): [number, TaskState] => [number, name]),
  // 1.0's spelling, from producers that already write it.
  ['TASK_STATE_CANCELED', 'TASK_STATE_CANCELED'],
]);
const STATE_TO_V03: Readonly<Record<TaskState, V03TaskStateName>> = Object.fromEntries(
  TASK_STATES.map((name, number) => [name, V03_TASK_STATES[number]]),
) as Record<TaskState, V03TaskStateName>;

/** An unknown or missing state is the proto zero value, as any ProtoJSON reader would take it. */
export const stateFromV03 = (state: string | number | undefined): TaskState =>
  (state === undefined ? undefined : STATE_FROM_V03.get(state)) ?? 'TASK_STATE_UNSPECIFIED';
export const stateToV03 = (state: TaskState): V03TaskStateName => STATE_TO_V03[state];

/** ROLE_UNSPECIFIED (or a role the gateway does not know) is read as the agent, as a2a-js compat does. */
export const roleFromV03 = (role: string | number | undefined): Role => (role === 'ROLE_USER' || role === 1 ? 'ROLE_USER' : 'ROLE_AGENT');

export function partFromV03(part: V03Part): Part {
  const metadata = part.metadata;
  if (part.text !== undefined) return defined({ text: part.text, metadata });
  if (part.file !== undefined) {
    const { fileWithUri, fileWithBytes, mimeType, mediaType, name } = part.file;
    const content = fileWithBytes !== undefined ? { raw: fileWithBytes } : { url: fileWithUri ?? '' };
    return defined(withFields(content, { mediaType: mimeType || mediaType || undefined, filename: name || undefined, metadata }));
  }
  let data: unknown = part.data?.data ?? {};
  let rest: JsonObject | undefined = metadata;
  if (metadata?.[DATA_PART_COMPAT_KEY] === true) {
    if (isRecord(data) && Object.hasOwn(data, 'value')) data = data.value;
    const { [DATA_PART_COMPAT_KEY]: _, ...others } = metadata;
    rest = Object.keys(others).length > 0 ? others : undefined;
  }
  return defined({ data, metadata: rest });
}

/** 0.3 DataPart.data is a Struct: other JSON values are wrapped as `{value}` and flagged like a2a-js compat does. */
export function partToV03(part: Part): V03Part {
  const { metadata, mediaType, filename } = part;
  switch (partKind(part)) {
    case 'text':
      return defined({ text: part.text ?? '', metadata });
    case 'raw':
      return defined({ file: defined({ fileWithBytes: toStandardBase64(part.raw ?? ''), mimeType: mediaType, name: filename }), metadata });
    case 'url':
      return defined({ file: defined({ fileWithUri: part.url ?? '', mimeType: mediaType, name: filename }), metadata });
    case 'data':
      if (isRecord(part.data)) return defined({ data: { data: part.data }, metadata });
      return { data: { data: { value: part.data ?? null } }, metadata: withFields(metadata, { [DATA_PART_COMPAT_KEY]: true }) };
  }
}

export function messageFromV03(message: V03Message): Message {
  return defined({
    messageId: message.messageId,
    role: roleFromV03(message.role),
    parts: (message.content ?? message.parts ?? []).map(partFromV03),
    contextId: message.contextId || undefined,
    taskId: message.taskId || undefined,
    referenceTaskIds: message.referenceTaskIds?.length ? message.referenceTaskIds : undefined,
    extensions: message.extensions?.length ? message.extensions : undefined,
    metadata: message.metadata,
  });
}

export function messageToV03(message: Message): V03Message {
  return defined({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: message.role,
    content: message.parts.map(partToV03),
    metadata: message.metadata,
    extensions: message.extensions?.length ? message.extensions : undefined,
    referenceTaskIds: message.referenceTaskIds?.length ? message.referenceTaskIds : undefined,
  });
}

export function statusFromV03(status: V03TaskStatus): TaskStatus {
  const message = status.message ?? status.update;
  return defined({
    state: stateFromV03(status.state),
    message: message ? messageFromV03(message) : undefined,
    timestamp: status.timestamp === undefined ? undefined : toRfc3339Utc(status.timestamp),
  });
}

export function artifactFromV03(artifact: V03Artifact): Artifact {
  return defined({
    artifactId: artifact.artifactId,
    name: artifact.name || undefined,
    description: artifact.description || undefined,
    parts: artifact.parts.map(partFromV03),
    metadata: artifact.metadata,
    extensions: artifact.extensions?.length ? artifact.extensions : undefined,
  });
}

export function taskFromV03(task: V03Task): Task {
  return defined({
    id: task.id,
    contextId: task.contextId || undefined,
    status: statusFromV03(task.status),
    artifacts: task.artifacts?.map(artifactFromV03),
    history: task.history?.map(messageFromV03),
    metadata: task.metadata,
  });
}

/** `final` is dropped (1.0 ends a turn by closing the stream); a missing contextId becomes `contextId`. */
export function statusUpdateFromV03(event: V03TaskStatusUpdateEvent, contextId = ''): TaskStatusUpdateEvent {
  return defined({
    taskId: event.taskId,
    contextId: event.contextId || contextId,
    status: statusFromV03(event.status),
    metadata: event.metadata,
  });
}

export function artifactUpdateFromV03(event: V03TaskArtifactUpdateEvent, contextId = ''): TaskArtifactUpdateEvent {
  return defined({
    taskId: event.taskId,
    contextId: event.contextId || contextId,
    artifact: artifactFromV03(event.artifact),
    append: event.append || undefined,
    lastChunk: event.lastChunk || undefined,
    metadata: event.metadata,
  });
}

/** The message of a 0.3 `{message}`/`{msg}` oneof, if that is what it carries. */
const messageOf = (value: { message?: V03Message | undefined; msg?: V03Message | undefined }): V03Message | undefined => value.message ?? value.msg;

/** A server message must carry a contextId in 1.0: the given fallback fills a missing one. */
const withContext = (message: Message, contextId: string): Message => (message.contextId ? message : withFields(message, { contextId }));

export function sendResponseFromV03(response: V03SendMessageResponse, fallbackContextId: string): SendMessageResponse {
  const message = messageOf(response);
  if (message) return { message: withContext(messageFromV03(message), fallbackContextId) };
  return { task: taskFromV03(response.task as V03Task) };
}

export interface V03StreamEventV1 {
  event: StreamResponse;
  /** The agent said this event ends its stream (`final: true`). */
  final: boolean;
}

/** One 0.3 StreamResponse → the 1.0 one; `contextId` fills events and messages that lack theirs. */
export function streamResponseFromV03(response: V03StreamResponse, contextId: string): V03StreamEventV1 {
  if (response.task) return { event: { task: taskFromV03(response.task) }, final: false };
  if (response.statusUpdate) {
    return { event: { statusUpdate: statusUpdateFromV03(response.statusUpdate, contextId) }, final: response.statusUpdate.final === true };
  }
  if (response.artifactUpdate) return { event: { artifactUpdate: artifactUpdateFromV03(response.artifactUpdate, contextId) }, final: false };
  return { event: { message: withContext(messageFromV03(messageOf(response) as V03Message), contextId) }, final: false };
}

/**
 * The body of `POST /v1/message:send|stream`. `blocking` is always written: 0.3 readers take a
 * missing bool as false (non-blocking), while a 1.0 caller that says nothing wants to wait.
 */
export function sendRequestToV03(request: SendMessageRequest): JsonObject {
  const configuration = request.configuration;
  const push = configuration?.taskPushNotificationConfig;
  return defined({
    message: messageToV03(request.message),
    configuration: defined({
      acceptedOutputModes: configuration?.acceptedOutputModes?.length ? configuration.acceptedOutputModes : undefined,
      pushNotification: push ? pushNotificationConfigToV03(push) : undefined,
      historyLength: configuration?.historyLength,
      blocking: configuration?.returnImmediately !== true,
    }),
    metadata: request.metadata,
  });
}

export function pushNotificationConfigToV03(config: TaskPushNotificationConfig): V03PushNotificationConfig {
  const authentication = config.authentication;
  return defined({
    id: config.id,
    url: config.url,
    token: config.token,
    authentication: authentication ? defined({ schemes: [authentication.scheme], credentials: authentication.credentials }) : undefined,
  });
}

/** The resource name of a push config (a2a-js writes an empty config id when the caller set none). */
export const pushConfigName = (taskId: string, configId = ''): string => `tasks/${taskId}/pushNotificationConfigs/${configId}`;

const PUSH_CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** The proto TaskPushNotificationConfig (the body of a create) of a 1.0 config of task `taskId`. */
export function taskPushConfigToV03(config: TaskPushNotificationConfig & { taskId: string }): V03TaskPushNotificationConfig {
  return { name: pushConfigName(config.taskId, config.id), pushNotificationConfig: pushNotificationConfigToV03(config) };
}

/** 0.3 config → the flat 1.0 one; task and config ids come from its name, else from the request. */
export function taskPushConfigFromV03(config: V03TaskPushNotificationConfig, taskId: string): TaskPushNotificationConfig {
  const named = PUSH_CONFIG_NAME.exec(config.name ?? '');
  const inner = config.pushNotificationConfig;
  const scheme = inner.authentication?.schemes?.[0];
  return defined({
    id: inner.id || named?.[2] || undefined,
    taskId: named?.[1] ?? taskId,
    url: inner.url,
    token: inner.token || undefined,
    authentication: scheme ? defined({ scheme, credentials: inner.authentication?.credentials || undefined }) : undefined,
  });
}

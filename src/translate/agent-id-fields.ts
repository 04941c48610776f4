import {
  withFields,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type TaskStatus,
} from '../model/index.js';
import type { AgentIdKind } from './agent-ids.js';

/**
 * The task and context ids of the 1.0 objects an older agent's answers become (mapped by agentIdToV1) and of
 * the 1.0 requests that go to it (agentIdFromV1): agent-ids.ts maps one id, these find them all. An object whose
 * ids need no mapping is returned as it is (no copy per stream event for the common case).
 */
export type IdMapping = (id: string, kind: AgentIdKind) => string;

type IdFields = Partial<Record<'id' | 'taskId' | 'contextId', string>>;

/** `value` with its named id fields mapped; the same object when none changed. */
function withIds<T extends IdFields>(value: T, map: IdMapping, fields: readonly (keyof IdFields)[]): T {
  let changed: IdFields | undefined;
  for (const field of fields) {
    const id = value[field];
    if (id === undefined) continue;
    const mapped = map(id, field === 'contextId' ? 'context id' : 'task id');
    if (mapped !== id) (changed ??= {})[field] = mapped;
  }
  return changed ? withFields(value, changed) : value;
}

export function messageIds(message: Message, map: IdMapping): Message {
  const mapped = withIds(message, map, ['taskId', 'contextId']);
  const references = message.referenceTaskIds;
  if (!references?.length) return mapped;
  const referenced = references.map((id) => map(id, 'task id'));
  return referenced.some((id, index) => id !== references[index]) ? withFields(mapped, { referenceTaskIds: referenced }) : mapped;
}

function statusIds(status: TaskStatus, map: IdMapping): TaskStatus {
  if (!status.message) return status;
  const message = messageIds(status.message, map);
  return message === status.message ? status : withFields(status, { message });
}

export function taskIds(task: Task, map: IdMapping): Task {
  const mapped = withIds(task, map, ['id', 'contextId']);
  const status = statusIds(task.status, map);
  const history = task.history?.map((message) => messageIds(message, map));
  const historyChanged = history?.some((message, index) => message !== task.history?.[index]) === true;
  if (status === task.status && !historyChanged) return mapped;
  return withFields(mapped, historyChanged ? { status, history } : { status });
}

export function streamResponseIds(event: StreamResponse, map: IdMapping): StreamResponse {
  if ('task' in event) {
    const task = taskIds(event.task, map);
    return task === event.task ? event : { task };
  }
  if ('message' in event) {
    const message = messageIds(event.message, map);
    return message === event.message ? event : { message };
  }
  if ('statusUpdate' in event) {
    const update = event.statusUpdate;
    const status = statusIds(update.status, map);
    const mapped = withIds(update, map, ['taskId', 'contextId']);
    return mapped === update && status === update.status
      ? event
      : { statusUpdate: status === update.status ? mapped : withFields(mapped, { status }) };
  }
  const update = withIds(event.artifactUpdate, map, ['taskId', 'contextId']);
  return update === event.artifactUpdate ? event : { artifactUpdate: update };
}

export const sendResponseIds = (response: SendMessageResponse, map: IdMapping): SendMessageResponse =>
  streamResponseIds(response, map) as SendMessageResponse;

/** A push config names its task; its own id is the caller's or the gateway's, never the agent's task's. */
export const pushConfigIds = <T extends TaskPushNotificationConfig>(config: T, map: IdMapping): T => withIds(config, map, ['taskId']);

export function pushConfigListIds(list: ListTaskPushNotificationConfigsResponse, map: IdMapping): ListTaskPushNotificationConfigsResponse {
  return withFields(list, { configs: list.configs.map((config) => pushConfigIds(config, map)) });
}

export function sendRequestIds(request: SendMessageRequest, map: IdMapping): SendMessageRequest {
  const message = messageIds(request.message, map);
  const push = request.configuration?.taskPushNotificationConfig;
  const mappedPush = push ? pushConfigIds(push, map) : undefined;
  if (message === request.message && mappedPush === push) return request;
  return withFields(request, {
    message,
    ...(mappedPush === push ? {} : { configuration: withFields(request.configuration, { taskPushNotificationConfig: mappedPush }) }),
  });
}

/** GetTask, CancelTask, SubscribeToTask: the task is `id`. */
export const taskRequestIds = <T extends { id: string }>(request: T, map: IdMapping): T => withIds(request, map, ['id']);

/** The push-config methods: the task is `taskId`, `id` is the config's. */
export const pushConfigRequestIds = <T extends { taskId: string }>(request: T, map: IdMapping): T => withIds(request, map, ['taskId']);

export const listTasksRequestIds = (request: ListTasksRequest, map: IdMapping): ListTasksRequest => withIds(request, map, ['contextId']);

export function listTasksResponseIds(response: ListTasksResponse, map: IdMapping): ListTasksResponse {
  return withFields(response, { tasks: response.tasks.map((task) => taskIds(task, map)) });
}

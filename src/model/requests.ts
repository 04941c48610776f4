import { z } from 'zod';
import { JsonObject } from './parts.js';
import { Message } from './message.js';
import { ProtocolId, Tenant } from './ids.js';
import { TaskState, Task } from './task.js';

export const AuthenticationInfo = z.looseObject({
  scheme: z.string().min(1),
  credentials: z.string().optional(),
});
export type AuthenticationInfo = z.infer<typeof AuthenticationInfo>;

const URL_EMPTY = 'url is empty: a push config needs a callback URL';

/**
 * A push config's callback URL. Proto3 JSON leaves an empty string out, so an SDK's `url: ""` arrives
 * as no url at all: both are told the url is empty, not "expected string, received undefined".
 */
export const PushCallbackUrl = z.string({ error: (issue) => (issue.input === undefined ? URL_EMPTY : undefined) }).min(1, URL_EMPTY);

export const TaskPushNotificationConfig = z.looseObject({
  tenant: Tenant.optional(),
  id: ProtocolId.optional(),
  taskId: z.string().optional(),
  url: PushCallbackUrl,
  token: z.string().optional(),
  authentication: AuthenticationInfo.optional(),
});
export type TaskPushNotificationConfig = z.infer<typeof TaskPushNotificationConfig>;

/** zod's own words for a fraction ("expected int, received number") read as if a number were wrong; the REST query's words. */
export const NOT_AN_INTEGER = 'must be an integer';

const HistoryLength = z.number().int(NOT_AN_INTEGER).min(0, 'history length must be non-negative');

export const SendMessageConfiguration = z.looseObject({
  acceptedOutputModes: z.array(z.string()).optional(),
  taskPushNotificationConfig: TaskPushNotificationConfig.optional(),
  historyLength: HistoryLength.optional(),
  returnImmediately: z.boolean().optional(),
});
export type SendMessageConfiguration = z.infer<typeof SendMessageConfiguration>;

export const SendMessageRequest = z.looseObject({
  tenant: Tenant.optional(),
  message: Message,
  configuration: SendMessageConfiguration.optional(),
  metadata: JsonObject.optional(),
});
export type SendMessageRequest = z.infer<typeof SendMessageRequest>;

export const GetTaskRequest = z.looseObject({
  tenant: Tenant.optional(),
  id: ProtocolId,
  historyLength: HistoryLength.optional(),
});
export type GetTaskRequest = z.infer<typeof GetTaskRequest>;

export const CancelTaskRequest = z.looseObject({
  tenant: Tenant.optional(),
  id: ProtocolId,
  metadata: JsonObject.optional(),
});
export type CancelTaskRequest = z.infer<typeof CancelTaskRequest>;

export const SubscribeToTaskRequest = z.looseObject({
  tenant: Tenant.optional(),
  id: ProtocolId,
});
export type SubscribeToTaskRequest = z.infer<typeof SubscribeToTaskRequest>;

export const ListTasksRequest = z.looseObject({
  tenant: Tenant.optional(),
  contextId: ProtocolId.optional(),
  status: TaskState.optional(),
  pageSize: z.number().int(NOT_AN_INTEGER).min(1, 'minimum page size is 1').max(100, 'maximum page size is 100').optional(),
  pageToken: z.string().optional(),
  historyLength: HistoryLength.optional(),
  statusTimestampAfter: z.string().optional(),
  includeArtifacts: z.boolean().optional(),
});
export type ListTasksRequest = z.infer<typeof ListTasksRequest>;

export const ListTasksResponse = z.looseObject({
  tasks: z.array(Task),
  nextPageToken: z.string(),
  pageSize: z.number().int(),
  totalSize: z.number().int(),
});
export type ListTasksResponse = z.infer<typeof ListTasksResponse>;

export const GetTaskPushNotificationConfigRequest = z.looseObject({
  tenant: Tenant.optional(),
  taskId: ProtocolId,
  id: ProtocolId,
});
export type GetTaskPushNotificationConfigRequest = z.infer<typeof GetTaskPushNotificationConfigRequest>;

export const DeleteTaskPushNotificationConfigRequest = GetTaskPushNotificationConfigRequest;
export type DeleteTaskPushNotificationConfigRequest = GetTaskPushNotificationConfigRequest;

/**
 * Unlike ListTasks' (`optional int32`), this page_size is a plain proto3 int32: 0 is its default and
 * means unset, and encoders that write defaults send it on every call. It gets the default page size.
 */
const PushConfigPageSize = z.preprocess((size) => (size === 0 ? undefined : size), z.number().int().min(1).max(100).optional());

export const ListTaskPushNotificationConfigsRequest = z.looseObject({
  tenant: Tenant.optional(),
  taskId: ProtocolId,
  pageSize: PushConfigPageSize,
  pageToken: z.string().optional(),
});
export type ListTaskPushNotificationConfigsRequest = z.infer<typeof ListTaskPushNotificationConfigsRequest>;

export const ListTaskPushNotificationConfigsResponse = z.looseObject({
  configs: z.array(TaskPushNotificationConfig),
  nextPageToken: z.string().optional(),
});
export type ListTaskPushNotificationConfigsResponse = z.infer<typeof ListTaskPushNotificationConfigsResponse>;

export const CreateTaskPushNotificationConfigRequest = TaskPushNotificationConfig.extend({ taskId: ProtocolId });
export type CreateTaskPushNotificationConfigRequest = z.infer<typeof CreateTaskPushNotificationConfigRequest>;

export const GetExtendedAgentCardRequest = z.looseObject({ tenant: Tenant.optional() });
export type GetExtendedAgentCardRequest = z.infer<typeof GetExtendedAgentCardRequest>;

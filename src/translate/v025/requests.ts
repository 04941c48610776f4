import type {
  AuthenticationInfo,
  CancelTaskRequest,
  CreateTaskPushNotificationConfigRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type {
  V025DeleteTaskPushNotificationConfigParams,
  V025GetTaskPushNotificationConfigParams,
  V025ListTaskPushNotificationConfigParams,
  V025MessageSendParams,
  V025PushNotificationConfig,
  V025TaskIdParams,
  V025TaskPushNotificationConfig,
  V025TaskQueryParams,
} from '../../protocol/v025/index.js';
import { defined } from '../common.js';
import { messageToV025, messageToV1 } from './messages.js';

/** The flat 1.0 config without its task and tenant (Omit<> would lose the fields of a loose zod type). */
type PushConfigBody = {
  id?: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
};

/** Nested 0.2.5 config body → flat 1.0 fields. `schemes[0]` becomes `scheme`; further schemes are lost. */
function pushConfigBodyToV1(config: V025PushNotificationConfig): PushConfigBody {
  const scheme = config.authentication?.schemes[0];
  return defined({
    id: config.id,
    url: config.url,
    token: config.token,
    // 1.0 requires a scheme: credentials without one cannot be expressed and are dropped with it.
    authentication: scheme ? defined({ scheme, credentials: config.authentication?.credentials }) : undefined,
  });
}

function pushConfigBodyToV025(config: TaskPushNotificationConfig): V025PushNotificationConfig {
  return defined({
    id: config.id,
    url: config.url,
    token: config.token,
    authentication: config.authentication
      ? defined({ schemes: [config.authentication.scheme], credentials: config.authentication.credentials })
      : undefined,
  });
}

/** tasks/pushNotificationConfig/set params and results → the flat 1.0 config. */
export function pushConfigToV1(config: V025TaskPushNotificationConfig): CreateTaskPushNotificationConfigRequest {
  return { taskId: config.taskId, ...pushConfigBodyToV1(config.pushNotificationConfig) };
}

export function pushConfigToV025(config: TaskPushNotificationConfig): V025TaskPushNotificationConfig {
  return { taskId: config.taskId ?? '', pushNotificationConfig: pushConfigBodyToV025(config) };
}

/**
 * message/send|stream params → SendMessageRequest. `blocking` has the opposite polarity of
 * `returnImmediately`; an absent `blocking` means blocking, i.e. `returnImmediately` is left out.
 */
export function sendParamsToV1(params: V025MessageSendParams, profile: MappingProfile): SendMessageRequest {
  const config = params.configuration;
  return defined({
    message: messageToV1(params.message, profile),
    configuration: config
      ? defined({
          acceptedOutputModes: config.acceptedOutputModes,
          historyLength: config.historyLength,
          taskPushNotificationConfig: config.pushNotificationConfig ? pushConfigBodyToV1(config.pushNotificationConfig) : undefined,
          returnImmediately: config.blocking === false ? true : undefined,
        })
      : undefined,
    metadata: params.metadata,
  });
}

/** SendMessageRequest → 0.2.5 params. `acceptedOutputModes` is always written (the 0.2.5 schema requires it); `tenant` is gateway-only. */
export function sendRequestToV025(request: SendMessageRequest, profile: MappingProfile): V025MessageSendParams {
  const config = request.configuration;
  return defined({
    message: messageToV025(request.message, profile),
    configuration: config
      ? defined({
          acceptedOutputModes: config.acceptedOutputModes ?? [],
          historyLength: config.historyLength,
          pushNotificationConfig: config.taskPushNotificationConfig ? pushConfigBodyToV025(config.taskPushNotificationConfig) : undefined,
          blocking: config.returnImmediately !== true,
        })
      : undefined,
    metadata: request.metadata,
  });
}

/** tasks/get → GetTask. 1.0 has no metadata on GetTask: it is dropped. */
export function getTaskParamsToV1(params: V025TaskQueryParams): GetTaskRequest {
  return defined({ id: params.id, historyLength: params.historyLength });
}

export function getTaskRequestToV025(request: GetTaskRequest): V025TaskQueryParams {
  return defined({ id: request.id, historyLength: request.historyLength });
}

export function cancelTaskParamsToV1(params: V025TaskIdParams): CancelTaskRequest {
  return defined({ id: params.id, metadata: params.metadata });
}

export function cancelTaskRequestToV025(request: CancelTaskRequest): V025TaskIdParams {
  return defined({ id: request.id, metadata: request.metadata });
}

/** tasks/resubscribe → SubscribeToTask (no metadata in 1.0). */
export function resubscribeParamsToV1(params: V025TaskIdParams): SubscribeToTaskRequest {
  return { id: params.id };
}

export function subscribeRequestToV025(request: SubscribeToTaskRequest): V025TaskIdParams {
  return { id: request.id };
}

/*
 * The push-config methods: 0.2.5 names the TASK with `id` and the config with
 * `pushNotificationConfigId`; 1.0 names the task `taskId` and the CONFIG `id` (docs/version-mapping.md, "Methods and params").
 */

/** A missing config id means "the task's config": the 0.2.x SDK convention stores an unnamed config under the task id. */
export function getPushConfigParamsToV1(params: V025GetTaskPushNotificationConfigParams): GetTaskPushNotificationConfigRequest {
  return { taskId: params.id, id: params.pushNotificationConfigId ?? params.id };
}

export function getPushConfigRequestToV025(request: GetTaskPushNotificationConfigRequest): V025GetTaskPushNotificationConfigParams {
  return { id: request.taskId, pushNotificationConfigId: request.id };
}

export function listPushConfigsParamsToV1(params: V025ListTaskPushNotificationConfigParams): ListTaskPushNotificationConfigsRequest {
  return { taskId: params.id };
}

/** 0.2.5 has no paging: pageSize/pageToken are dropped. */
export function listPushConfigsRequestToV025(request: ListTaskPushNotificationConfigsRequest): V025ListTaskPushNotificationConfigParams {
  return { id: request.taskId };
}

export function deletePushConfigParamsToV1(params: V025DeleteTaskPushNotificationConfigParams): DeleteTaskPushNotificationConfigRequest {
  return { taskId: params.id, id: params.pushNotificationConfigId };
}

export function deletePushConfigRequestToV025(request: DeleteTaskPushNotificationConfigRequest): V025DeleteTaskPushNotificationConfigParams {
  return { id: request.taskId, pushNotificationConfigId: request.id };
}

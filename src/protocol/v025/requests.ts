import { z } from 'zod';
import { V025JsonObject } from './parts.js';
import { V025Message } from './objects.js';
import { NOT_AN_INTEGER, PushCallbackUrl } from '../../model/requests.js';

export const V025PushNotificationAuthenticationInfo = z.looseObject({
  schemes: z.array(z.string()),
  credentials: z.string().optional(),
});
export type V025PushNotificationAuthenticationInfo = z.infer<typeof V025PushNotificationAuthenticationInfo>;

export const V025PushNotificationConfig = z.looseObject({
  id: z.string().optional(),
  url: PushCallbackUrl,
  token: z.string().optional(),
  authentication: V025PushNotificationAuthenticationInfo.optional(),
});
export type V025PushNotificationConfig = z.infer<typeof V025PushNotificationConfig>;

/** Nested, unlike 1.0's flat config. */
export const V025TaskPushNotificationConfig = z.looseObject({
  taskId: z.string().min(1),
  pushNotificationConfig: V025PushNotificationConfig,
});
export type V025TaskPushNotificationConfig = z.infer<typeof V025TaskPushNotificationConfig>;

export const V025MessageSendConfiguration = z.looseObject({
  /** Required by the 0.2.5 schema, optional from 0.2.6 on; 0.2.6/0.3 clients omit it. */
  acceptedOutputModes: z.array(z.string()).optional(),
  historyLength: z.number().int(NOT_AN_INTEGER).optional(),
  pushNotificationConfig: V025PushNotificationConfig.optional(),
  blocking: z.boolean().optional(),
});
export type V025MessageSendConfiguration = z.infer<typeof V025MessageSendConfiguration>;

export const V025MessageSendParams = z.looseObject({
  message: V025Message,
  configuration: V025MessageSendConfiguration.optional(),
  metadata: V025JsonObject.optional(),
});
export type V025MessageSendParams = z.infer<typeof V025MessageSendParams>;

export const V025TaskIdParams = z.looseObject({
  id: z.string().min(1, 'id is required'),
  metadata: V025JsonObject.optional(),
});
export type V025TaskIdParams = z.infer<typeof V025TaskIdParams>;

export const V025TaskQueryParams = V025TaskIdParams.extend({
  historyLength: z.number().int(NOT_AN_INTEGER).optional(),
});
export type V025TaskQueryParams = z.infer<typeof V025TaskQueryParams>;

/** `id` is the TASK id here; a bare TaskIdParams (no config id) is deprecated but accepted. */
export const V025GetTaskPushNotificationConfigParams = V025TaskIdParams.extend({
  pushNotificationConfigId: z.string().optional(),
});
export type V025GetTaskPushNotificationConfigParams = z.infer<typeof V025GetTaskPushNotificationConfigParams>;

export const V025ListTaskPushNotificationConfigParams = V025TaskIdParams;
export type V025ListTaskPushNotificationConfigParams = V025TaskIdParams;

export const V025DeleteTaskPushNotificationConfigParams = V025TaskIdParams.extend({
  pushNotificationConfigId: z.string().min(1, 'pushNotificationConfigId is required'),
});
export type V025DeleteTaskPushNotificationConfigParams = z.infer<typeof V025DeleteTaskPushNotificationConfigParams>;

/** JSON-RPC error object as 0.2.5 sends it: `data` may be anything. */
export const V025JsonRpcError = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type V025JsonRpcError = z.infer<typeof V025JsonRpcError>;

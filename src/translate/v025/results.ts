import { randomUUID } from 'node:crypto';
import { withFields, type ListTaskPushNotificationConfigsResponse, type SendMessageResponse } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025SendMessageResult, V025TaskPushNotificationConfig } from '../../protocol/v025/index.js';
import { messageToV025, messageToV1 } from './messages.js';
import { pushConfigToV025, pushConfigToV1 } from './requests.js';
import { taskToV025, taskToV1, type TaskToV025Options } from './tasks.js';

/**
 * 0.2.5 message/send result (bare, told apart by kind) → 1.0 `{task}` | `{message}`. 1.0 requires a
 * contextId on server messages: a missing one becomes `options.contextId` or a new UUID.
 */
export function sendResultToV1(result: V025SendMessageResult, profile: MappingProfile, options: { contextId?: string } = {}): SendMessageResponse {
  if (result.kind === 'task') return { task: taskToV1(result, profile) };
  const message = messageToV1(result, profile);
  return { message: withFields(message, { contextId: message.contextId || options.contextId || randomUUID() }) };
}

/** 1.0 SendMessage result → bare 0.2.5 Task | Message (plain spec shape; the facade's message/send folds its reply reducer instead). */
export function sendResponseToV025(response: SendMessageResponse, profile: MappingProfile, options: TaskToV025Options = {}): V025SendMessageResult {
  return 'task' in response ? taskToV025(response.task, profile, options) : messageToV025(response.message, profile);
}

/** 0.2.5 list result is a bare array; 1.0 wraps it. */
export function pushConfigListToV1(configs: readonly V025TaskPushNotificationConfig[]): ListTaskPushNotificationConfigsResponse {
  return { configs: configs.map(pushConfigToV1) };
}

/** Paging is lost: 0.2.5 has none, so only the page at hand is returned. */
export function pushConfigListToV025(response: ListTaskPushNotificationConfigsResponse): V025TaskPushNotificationConfig[] {
  return response.configs.map(pushConfigToV025);
}

/** Delete: 0.2.5 answers null, 1.0 google.protobuf.Empty (`{}`); a2a-js 1.x answers null, accepted too. */
export function deleteResultToV1(): Record<string, never> {
  return {};
}

export function deleteResultToV025(): null {
  return null;
}

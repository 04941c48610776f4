import type { CallContext } from '../core/agent-port.js';
import type { MappingProfile } from '../mappings/index.js';
import {
  withFields,
  isInterruptedState,
  isTerminalState,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type TaskState,
} from '../model/index.js';
import { taskToV025 } from '../translate/index.js';
import type { PushConfigStore } from './config-store/types.js';
import type { ResolveHeaders } from './dispatch.js';
import { NOTIFICATION_TOKEN_HEADER, pushAuthHeaders } from './headers.js';
import { maskConfig } from './secrets.js';

/** The protocol version of the webhook body a receiver gets: the version of the surface that registered it. */
export type PayloadVersion = '1.0' | '0.2.5';

/**
 * Where a stored config remembers its payload version. It rides inside the config (the stores keep
 * unknown fields), so it survives restarts and replicas; a value a caller sent is overwritten on
 * create and the field is never returned.
 */
export const PAYLOAD_VERSION_FIELD = 'a2aBridgePayloadVersion';

/** The 1.0 name without the `X-` prefix; sent alongside it because receivers check either. */
export const NOTIFICATION_TOKEN_HEADER_V1 = 'A2A-Notification-Token';
/** The same on every retry and redelivery, and, for a timestamped status, from every replica that notifies the change (event-id.ts): receivers deduplicate on it. */
export const EVENT_ID_HEADER = 'A2A-Event-Id';

export const CONTENT_TYPE: Record<PayloadVersion, string> = {
  '1.0': 'application/a2a+json',
  '0.2.5': 'application/json',
};

export const payloadVersionOf = (ctx: CallContext): PayloadVersion => (ctx.surface === 'v025' ? '0.2.5' : '1.0');

export function withPayloadVersion(config: TaskPushNotificationConfig, version: PayloadVersion): TaskPushNotificationConfig {
  return withFields(config, { [PAYLOAD_VERSION_FIELD]: version });
}

export function storedPayloadVersion(config: TaskPushNotificationConfig): PayloadVersion {
  return (config as Record<string, unknown>)[PAYLOAD_VERSION_FIELD] === '0.2.5' ? '0.2.5' : '1.0';
}

/** A config as a caller sees it: bookkeeping removed, secrets masked unless `push-reveal-secrets`. */
export function presentConfig(config: TaskPushNotificationConfig, revealSecrets: boolean): TaskPushNotificationConfig {
  const { [PAYLOAD_VERSION_FIELD]: _version, ...visible } = config as Record<string, unknown>;
  const clean = visible as TaskPushNotificationConfig;
  return revealSecrets ? clean : maskConfig(clean);
}

/** The state an event moves its task to; undefined for artifact updates and messages. */
export function eventState(event: StreamResponse): TaskState | undefined {
  if ('task' in event) return event.task.status.state;
  if ('statusUpdate' in event) return event.statusUpdate.status.state;
  return undefined;
}

/** `push-events: terminal`: the states a receiver is told about (the turn is over or waits for it). */
export const isNotifiedState = (state: TaskState): boolean => isTerminalState(state) || isInterruptedState(state);

export const v1Payload = (event: StreamResponse): string => JSON.stringify(event);

/** A 0.2.5 receiver expects the whole Task (`kind: "task"`) on every notification. */
export const v025Payload = (task: Task, profile: MappingProfile): string => JSON.stringify(taskToV025(task, profile));

/** Both token headers and Authorization, from the config as stored now. */
export function notificationHeaders(config: TaskPushNotificationConfig): Record<string, string> {
  const headers = pushAuthHeaders(config);
  const token = headers[NOTIFICATION_TOKEN_HEADER];
  if (token !== undefined) headers[NOTIFICATION_TOKEN_HEADER_V1] = token;
  return headers;
}

/**
 * Secret headers of a job, read from the store at dispatch. A job whose config was deleted, or
 * replaced with another URL, is dropped: the new credentials must never go to the old URL.
 */
export function resolveNotificationHeaders(store: PushConfigStore): ResolveHeaders {
  return async (job) => {
    const stored = await store.get(job.owner, job.taskId, job.configId);
    if (!stored || stored.config.url !== job.url) return null;
    return notificationHeaders(stored.config);
  };
}

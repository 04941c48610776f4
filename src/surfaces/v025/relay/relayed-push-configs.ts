import { parseParams, withFields } from '../../../model/index.js';
import { isRecord } from '../../../model/json.js';
import { V025PushNotificationConfig, V025TaskPushNotificationConfig } from '../../../protocol/v025/index.js';
import { assertConfigContent } from '../../../push/config-store/types.js';
import { assertConfigFitsHeaders } from '../../../push/headers.js';
import { pushConfigToV1 } from '../../../translate/index.js';

/** `push-notifications` and `push-allow-private`, as the facade reads them. */
export interface RelayedPushOptions {
  pushNotifications: boolean;
  pushAllowPrivate?: boolean;
}

const MESSAGE_METHODS: ReadonlySet<string> = new Set(['message/send', 'message/stream']);
const SET_METHOD = 'tasks/pushNotificationConfig/set';

/**
 * The params a relayed call (passthrough.ts) goes on with, as far as push goes. Relayed, a config is the agent's,
 * which pushes it itself, from its own network: so it reaches the agent only under the rules the gateway keeps
 * for the configs it stores (README, Push notifications), or a caller could have the agent call its loopback, its
 * private network or a metadata address. With push off a message's inline config is taken off, as the core takes
 * it off (push/disabled-service.ts: the agent would push itself); the push methods never get here then (the
 * dialect refuses them, -32003). With push on, a config (inline or `tasks/pushNotificationConfig/set`) is checked
 * (-32602) and goes on as the caller wrote it.
 */
export function relayedPushParams(method: string, params: unknown, options: RelayedPushOptions): unknown {
  const allowPrivate = options.pushAllowPrivate ?? false;
  if (method === SET_METHOD) {
    checkConfig(parseParams(V025TaskPushNotificationConfig, params).pushNotificationConfig, allowPrivate);
    return params;
  }
  if (!MESSAGE_METHODS.has(method) || !isRecord(params) || !isRecord(params.configuration)) return params;
  const { pushNotificationConfig: inline, ...configuration } = params.configuration;
  if (inline === undefined) return params;
  if (!options.pushNotifications) return withFields(params, { configuration });
  checkConfig(parseParams(V025PushNotificationConfig, inline), allowPrivate);
  return params;
}

/** The checks of a config the gateway stores (push's assertConfigContent) and of its size, but the id rule: a relayed task's id is the agent's. */
function checkConfig(config: V025PushNotificationConfig, allowPrivate: boolean): void {
  const flat = pushConfigToV1({ taskId: '', pushNotificationConfig: config });
  assertConfigContent(flat, { allowPrivate });
  assertConfigFitsHeaders(flat);
}

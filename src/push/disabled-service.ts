import type { AgentPort, Settling } from '../core/agent-port.js';
import { withFields, type SendMessageRequest } from '../model/index.js';
import { unsupportedPushConfigMethods } from './config-methods.js';
import type { PushService } from './service.js';

/** The request without its inline config, which must never reach the upstream (it would push itself). */
export function withoutInlineConfig(request: SendMessageRequest): SendMessageRequest {
  if (!request.configuration?.taskPushNotificationConfig) return request;
  const { taskPushNotificationConfig: _inline, ...configuration } = request.configuration;
  return withFields(request, { configuration });
}

/** `port` with `methods` laid over it: the rest of its properties (`settled`, …) stay reachable. */
export function overlay<P extends AgentPort>(port: P, methods: Partial<AgentPort>): P {
  return Object.assign(Object.create(port) as P, methods);
}

/** `push-notifications: false` (service.ts). */
export function disabledPushService(): PushService {
  return {
    decorate<P extends AgentPort & Settling>(port: P): P {
      return overlay(
        port,
        withFields(unsupportedPushConfigMethods, {
          sendMessage: (request, ctx) => port.sendMessage(withoutInlineConfig(request), ctx),
          sendStreamingMessage: (request, ctx) => port.sendStreamingMessage(withoutInlineConfig(request), ctx),
        } satisfies Partial<AgentPort>),
      );
    },
    start() {},
    async stop() {},
  };
}

import { z } from 'zod';
import { A2AError, parseParams } from '../../model/index.js';
import type { MappingProfile, V1Method } from '../../mappings/index.js';
import {
  V025AgentCard,
  V025DeleteTaskPushNotificationConfigParams,
  V025GetTaskPushNotificationConfigParams,
  V025ListTaskPushNotificationConfigParams,
  V025SendMessageResult,
  V025Task,
  V025TaskIdParams,
  V025TaskPushNotificationConfig,
  V025TaskQueryParams,
  parseV025Response,
  parseV025SendParams,
  type V025Method,
} from '../../protocol/v025/index.js';
import {
  AgentCancelTaskRequest,
  AgentCreatePushConfigRequest,
  AgentGetTaskRequest,
  AgentListPushConfigsRequest,
  AgentPushConfigRequest,
  AgentSendMessageRequest,
  AgentSubscribeToTaskRequest,
} from './agent-requests.js';
import { cardFromV025 } from './cards.js';
import * as req from './requests.js';
import { deleteResultToV1, pushConfigListToV1, sendResultToV1 } from './results.js';
import { taskToV1 } from './tasks.js';

const isMethodOf = <K extends string>(table: Readonly<Partial<Record<K, unknown>>>, method: string): method is K => Object.hasOwn(table, method);

/**
 * A 0.2.5 JSON-RPC call → the 1.0 method and params. The method goes through the profile's table;
 * the params are validated against the 0.2.5 schema first (a caller's mistake is -32602 naming the
 * field) and translated by the target 1.0 method. Unknown methods are -32601.
 */
export function requestToV1(method: string, params: unknown, profile: MappingProfile): { method: V1Method; params: unknown } {
  if (!isMethodOf<V025Method>(profile.methodsFromV025, method)) throw A2AError.methodNotFound(method);
  const target = profile.methodsFromV025[method];
  switch (target) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return { method: target, params: req.sendParamsToV1(parseV025SendParams(params), profile) };
    case 'GetTask':
      return { method: target, params: req.getTaskParamsToV1(parseParams(V025TaskQueryParams, params)) };
    case 'CancelTask':
      return { method: target, params: req.cancelTaskParamsToV1(parseParams(V025TaskIdParams, params)) };
    case 'SubscribeToTask':
      return { method: target, params: req.resubscribeParamsToV1(parseParams(V025TaskIdParams, params)) };
    case 'CreateTaskPushNotificationConfig':
      return { method: target, params: req.pushConfigToV1(parseParams(V025TaskPushNotificationConfig, params)) };
    case 'GetTaskPushNotificationConfig':
      return { method: target, params: req.getPushConfigParamsToV1(parseParams(V025GetTaskPushNotificationConfigParams, params)) };
    case 'ListTaskPushNotificationConfigs':
      return { method: target, params: req.listPushConfigsParamsToV1(parseParams(V025ListTaskPushNotificationConfigParams, params)) };
    case 'DeleteTaskPushNotificationConfig':
      return { method: target, params: req.deletePushConfigParamsToV1(parseParams(V025DeleteTaskPushNotificationConfigParams, params)) };
    case 'GetExtendedAgentCard':
      return { method: target, params: {} };
    case 'ListTasks':
      throw A2AError.methodNotFound(method);
  }
}

/**
 * A 1.0 call → the 0.2.5 method and params, for a 0.2.5 upstream, its ids the agent's own (agent-requests.ts). ListTasks has no counterpart
 * (-32004, like a2a-js compat). GetExtendedAgentCard maps to the 0.3 method name; a strict 0.2.5
 * agent serves the card by HTTP GET instead, which is the upstream client's business.
 */
export function requestToV025(method: string, params: unknown, profile: MappingProfile): { method: V025Method; params: unknown } {
  if (!isMethodOf<V1Method>(profile.methodsToV025, method)) {
    if (method === 'ListTasks') throw A2AError.unsupportedOperation('ListTasks is not available on an A2A 0.2.5 agent');
    throw A2AError.methodNotFound(method);
  }
  const target = profile.methodsToV025[method];
  if (target === undefined) throw A2AError.unsupportedOperation(`${method} is not available on an A2A 0.2.5 agent`);
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return { method: target, params: req.sendRequestToV025(parseParams(AgentSendMessageRequest, params), profile) };
    case 'GetTask':
      return { method: target, params: req.getTaskRequestToV025(parseParams(AgentGetTaskRequest, params)) };
    case 'CancelTask':
      return { method: target, params: req.cancelTaskRequestToV025(parseParams(AgentCancelTaskRequest, params)) };
    case 'SubscribeToTask':
      return { method: target, params: req.subscribeRequestToV025(parseParams(AgentSubscribeToTaskRequest, params)) };
    case 'CreateTaskPushNotificationConfig':
      return { method: target, params: req.pushConfigToV025(parseParams(AgentCreatePushConfigRequest, params)) };
    case 'GetTaskPushNotificationConfig':
      return { method: target, params: req.getPushConfigRequestToV025(parseParams(AgentPushConfigRequest, params)) };
    case 'ListTaskPushNotificationConfigs':
      return { method: target, params: req.listPushConfigsRequestToV025(parseParams(AgentListPushConfigsRequest, params)) };
    case 'DeleteTaskPushNotificationConfig':
      return { method: target, params: req.deletePushConfigRequestToV025(parseParams(AgentPushConfigRequest, params)) };
    case 'GetExtendedAgentCard':
    case 'ListTasks':
      return { method: target, params: {} };
  }
}

const V025PushConfigList = z.array(V025TaskPushNotificationConfig);

/**
 * A 0.2.5 upstream's result of a unary call → the 1.0 result of `method`. The upstream's output is
 * validated; a malformed one is -32006 (invalid agent response). Streams go through
 * createV025ToV1StreamTranslator instead.
 */
export function resultToV1(method: V1Method, result: unknown, profile: MappingProfile, options: { contextId?: string } = {}): unknown {
  switch (method) {
    case 'SendMessage':
      return sendResultToV1(parseV025Response(V025SendMessageResult, result, 'message/send result'), profile, options);
    case 'GetTask':
    case 'CancelTask':
      return taskToV1(parseV025Response(V025Task, result, 'task'), profile);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return req.pushConfigToV1(parseV025Response(V025TaskPushNotificationConfig, result, 'push notification config'));
    case 'ListTaskPushNotificationConfigs':
      return pushConfigListToV1(parseV025Response(V025PushConfigList, result, 'push notification config list'));
    case 'DeleteTaskPushNotificationConfig':
      return deleteResultToV1();
    case 'GetExtendedAgentCard':
      return cardFromV025(parseV025Response(V025AgentCard, result, 'agent card'));
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
    case 'ListTasks':
      throw A2AError.internal(`${method} has no unary 0.2.5 result`);
  }
}

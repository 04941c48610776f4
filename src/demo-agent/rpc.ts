import {
  A2AError,
  CancelTaskRequest,
  CreateTaskPushNotificationConfigRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  parseParams,
  type AgentCard,
  type StreamResponse,
} from '../model/index.js';
import type { DemoRuntime } from './runtime.js';

/** What a method produces: a JSON result, or events to stream as SSE. */
export type RpcOutcome = { kind: 'json'; result: unknown } | { kind: 'stream'; events: AsyncIterable<StreamResponse> };

export interface RpcScope {
  runtime: DemoRuntime;
  extendedCard: () => AgentCard;
}

type RpcMethod = (params: unknown, scope: RpcScope) => RpcOutcome | Promise<RpcOutcome>;

const json = (result: unknown): RpcOutcome => ({ kind: 'json', result });
const stream = (events: AsyncIterable<StreamResponse>): RpcOutcome => ({ kind: 'stream', events });

/** Push configs are validated like iac-code's SDK would, then refused: the card says pushNotifications false. */
const pushNotSupported =
  (schema: Parameters<typeof parseParams>[0]): RpcMethod =>
  (params) => {
    parseParams(schema, params);
    throw A2AError.pushNotSupported();
  };

/** The A2A 1.0 JSON-RPC methods the demo agent serves; anything else is -32601. */
export const RPC_METHODS: Readonly<Record<string, RpcMethod>> = {
  SendMessage: async (params, { runtime }) => json(await runtime.sendMessage(parseParams(SendMessageRequest, params))),
  SendStreamingMessage: (params, { runtime }) => stream(runtime.startTurn(parseParams(SendMessageRequest, params)).events),
  GetTask: (params, { runtime }) => json(runtime.getTask(parseParams(GetTaskRequest, params))),
  ListTasks: (params, { runtime }) => json(runtime.listTasks(parseParams(ListTasksRequest, params))),
  CancelTask: (params, { runtime }) => json(runtime.cancelTask(parseParams(CancelTaskRequest, params))),
  SubscribeToTask: (params, { runtime }) => stream(runtime.subscribe(parseParams(SubscribeToTaskRequest, params))),
  CreateTaskPushNotificationConfig: pushNotSupported(CreateTaskPushNotificationConfigRequest),
  GetTaskPushNotificationConfig: pushNotSupported(GetTaskPushNotificationConfigRequest),
  ListTaskPushNotificationConfigs: pushNotSupported(ListTaskPushNotificationConfigsRequest),
  DeleteTaskPushNotificationConfig: pushNotSupported(DeleteTaskPushNotificationConfigRequest),
  GetExtendedAgentCard: (params, { extendedCard }) => {
    parseParams(GetExtendedAgentCardRequest, params);
    return json(extendedCard());
  },
};

/**
 * a2a-sdk's validate_version("1.0"): a missing or empty header means 0.3; only the major
 * version is compared (1.7 and 1.0.0 pass, 2.0 and non-versions fail).
 */
export function checkProtocolVersion(header: string | undefined): void {
  const version = header?.trim() || '0.3';
  const major = /^v?(\d+)(?:\.\d+)*$/.exec(version)?.[1];
  if (major === undefined || Number(major) !== 1) throw A2AError.versionNotSupported(version);
}

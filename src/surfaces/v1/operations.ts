import type { z } from 'zod';
import type { GatewayConfig } from '../../config/schema.js';
import type { AgentPort, CallContext } from '../../core/agent-port.js';
import type { CardSource } from '../../core/card-source.js';
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
  eventTaskRef,
  eventTaskState,
  knownFields,
  parseParams,
  type StreamResponse,
  type Task,
} from '../../model/index.js';
import type { V1Method } from '../../mappings/vocabulary.js';
import type { CardSigner } from '../../signing/card-signer.js';
import type { AgentRoutesUpstream } from './agent-routes.js';
import { servedCard } from './card.js';
import { requireExtensions } from './required-extensions.js';

export interface V1SurfaceDeps {
  port: AgentPort;
  cards: CardSource;
  config: GatewayConfig;
  /** Aborted (reason: the error to report) when the gateway shuts down: open calls and streams end with it. */
  shutdown?: AbortSignal;
  /** Signs the served cards (public and extended) when `signing.keys` is configured. */
  signer?: CardSigner;
  /** Where the agent's own (non-A2A) routes are forwarded to; absent: they are not served. */
  agentRoutes?: AgentRoutesUpstream;
}

/** What one call needs besides its params: the port, the config and the gateway's public base URL. */
export interface OperationEnv {
  port: AgentPort;
  config: GatewayConfig;
  baseUrl(): string;
  /** The upstream card: its required extensions and whether it offers an extended card. */
  cards?: CardSource;
  signer?: CardSigner;
}

export interface TaskRef {
  taskId?: string;
  contextId?: string;
  /** Of an answer or event only: the task state it reports. */
  state?: string;
}

interface OperationBase<T> {
  schema: z.ZodType<T>;
  /** Push config methods answer -32003 while the gateway's push notifications are off. */
  push?: boolean;
  ref(params: T): TaskRef;
}
interface UnaryOperation<T> extends OperationBase<T> {
  kind: 'unary';
  invoke(env: OperationEnv, params: T, ctx: CallContext): Promise<unknown>;
}
interface StreamOperation<T> extends OperationBase<T> {
  kind: 'stream';
  invoke(env: OperationEnv, params: T, ctx: CallContext): AsyncIterable<StreamResponse>;
}
type Operation<T> = UnaryOperation<T> | StreamOperation<T>;

const messageRef = (params: SendMessageRequest): TaskRef => ({
  taskId: params.message.taskId,
  contextId: params.message.contextId,
});
const idRef = (params: { id: string }): TaskRef => ({ taskId: params.id });
const pushRef = (params: { taskId: string }): TaskRef => ({ taskId: params.taskId });

/** The eleven A2A 1.0 operations, shared by the JSON-RPC dialect and the HTTP+JSON routes. */
export const V1_OPERATIONS = {
  SendMessage: {
    kind: 'unary',
    schema: SendMessageRequest,
    ref: messageRef,
    invoke: (env, params, ctx) => {
      requireExtensions(env, ctx);
      return env.port.sendMessage(params, ctx);
    },
  } satisfies Operation<SendMessageRequest>,
  SendStreamingMessage: {
    kind: 'stream',
    schema: SendMessageRequest,
    ref: messageRef,
    invoke: (env, params, ctx) => {
      requireExtensions(env, ctx);
      return env.port.sendStreamingMessage(params, ctx);
    },
  } satisfies Operation<SendMessageRequest>,
  GetTask: {
    kind: 'unary',
    schema: GetTaskRequest,
    ref: idRef,
    invoke: (env, params, ctx) => env.port.getTask(params, ctx),
  } satisfies Operation<GetTaskRequest>,
  ListTasks: {
    kind: 'unary',
    schema: ListTasksRequest,
    ref: (params) => ({ contextId: params.contextId }),
    invoke: (env, params, ctx) => env.port.listTasks(params, ctx),
  } satisfies Operation<ListTasksRequest>,
  CancelTask: {
    kind: 'unary',
    schema: CancelTaskRequest,
    ref: idRef,
    invoke: (env, params, ctx) => env.port.cancelTask(params, ctx),
  } satisfies Operation<CancelTaskRequest>,
  SubscribeToTask: {
    kind: 'stream',
    schema: SubscribeToTaskRequest,
    ref: idRef,
    invoke: (env, params, ctx) => env.port.subscribeToTask(params, ctx),
  } satisfies Operation<SubscribeToTaskRequest>,
  CreateTaskPushNotificationConfig: {
    kind: 'unary',
    push: true,
    schema: CreateTaskPushNotificationConfigRequest,
    ref: pushRef,
    invoke: (env, params, ctx) => env.port.createTaskPushNotificationConfig(params, ctx),
  } satisfies Operation<CreateTaskPushNotificationConfigRequest>,
  GetTaskPushNotificationConfig: {
    kind: 'unary',
    push: true,
    schema: GetTaskPushNotificationConfigRequest,
    ref: pushRef,
    invoke: (env, params, ctx) => env.port.getTaskPushNotificationConfig(params, ctx),
  } satisfies Operation<GetTaskPushNotificationConfigRequest>,
  ListTaskPushNotificationConfigs: {
    kind: 'unary',
    push: true,
    schema: ListTaskPushNotificationConfigsRequest,
    ref: pushRef,
    invoke: (env, params, ctx) => env.port.listTaskPushNotificationConfigs(params, ctx),
  } satisfies Operation<ListTaskPushNotificationConfigsRequest>,
  DeleteTaskPushNotificationConfig: {
    kind: 'unary',
    push: true,
    schema: DeleteTaskPushNotificationConfigRequest,
    ref: pushRef,
    invoke: async (env, params, ctx) => {
      await env.port.deleteTaskPushNotificationConfig(params, ctx);
      return null;
    },
  } satisfies Operation<DeleteTaskPushNotificationConfigRequest>,
  GetExtendedAgentCard: {
    kind: 'unary',
    schema: GetExtendedAgentCardRequest,
    ref: () => ({}),
    // The upstream's extended card names the upstream's URLs and schemes: serve it rewritten (and signed) like the public one.
    invoke: async (env, _params, ctx) => {
      const card = servedCard(await env.port.getExtendedAgentCard(ctx), env.baseUrl(), env.config);
      return env.signer ? env.signer.sign(card) : card;
    },
  } satisfies Operation<GetExtendedAgentCardRequest>,
} as const satisfies Record<V1Method, unknown>;

export type { V1Method };

export const isV1Method = (method: string): method is V1Method => Object.hasOwn(V1_OPERATIONS, method);

/** A call validated and ready to run, with the types erased so both surfaces can drive any operation. */
export type PreparedCall =
  | { kind: 'unary'; ref: TaskRef; params: unknown; run(ctx: CallContext): Promise<unknown> }
  | { kind: 'stream'; ref: TaskRef; params: unknown; run(ctx: CallContext): AsyncIterable<StreamResponse> };

/**
 * Validates params (-32602 naming the field) and the push switch (-32003), then binds the call. Only the
 * known fields are validated and passed on: an unknown one is ignored, as a ProtoJSON parser does.
 */
export function prepareCall(method: V1Method, rawParams: unknown, env: OperationEnv): PreparedCall {
  const operation = V1_OPERATIONS[method] as Operation<unknown>;
  if (operation.push && !env.config['push-notifications']) throw A2AError.pushNotSupported();
  const params = knownFields(operation.schema, parseParams(operation.schema, rawParams));
  const ref = operation.ref(params);
  if (operation.kind === 'stream') {
    return { kind: 'stream', ref, params, run: (ctx) => operation.invoke(env, params, ctx) };
  }
  return { kind: 'unary', ref, params, run: (ctx) => operation.invoke(env, params, ctx) };
}

/** Task and context of a unary result or stream event, for the request log. */
export function resultRef(result: unknown): TaskRef {
  if (typeof result !== 'object' || result === null) return {};
  if ('task' in result || 'message' in result || 'statusUpdate' in result || 'artifactUpdate' in result) {
    const state = eventTaskState(result as StreamResponse);
    return { ...eventTaskRef(result as StreamResponse), ...(state ? { state } : {}) };
  }
  if ('id' in result && 'status' in result) {
    const task = result as Task;
    return { taskId: task.id, contextId: task.contextId, state: task.status.state };
  }
  return {};
}

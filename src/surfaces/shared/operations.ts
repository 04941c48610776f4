import type { z } from 'zod';
import type { AgentPort, CallContext } from '../../core/agent-port.js';
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
  knownFields,
  parseParams,
  parseSendMessageRequest,
  type AgentCard,
  type StreamResponse,
} from '../../model/index.js';
import type { V1Method } from '../../mappings/vocabulary.js';

/**
 * What one call needs besides its params. The card rules are the 1.0 edges' (their served card lives
 * with them) and come in as functions, so every edge, the facade included, drives the same table.
 */
export interface OperationEnv {
  port: AgentPort;
  /** `push-notifications`: while off, the push config methods answer -32003. */
  pushNotifications: boolean;
  /** Throws -32008 when a message send lacks an extension the served card requires; absent: none is required. */
  requireExtensions?(ctx: CallContext): void;
  /** The upstream's extended card as this edge serves it (its URLs and schemes, signed); absent: -32007. */
  servedExtendedCard?(card: AgentCard): Promise<AgentCard>;
}

export interface TaskRef {
  taskId?: string;
  contextId?: string;
}

interface OperationBase<T> {
  schema: z.ZodType<T>;
  /** A faster check that accepts what the schema accepts (model/well-formed.ts); default: the schema's. */
  parse?(params: unknown): T;
  /** Push config methods answer -32003 while the gateway's push notifications are off. */
  push?: boolean;
  /**
   * The call changes something (a turn, a cancel, a push config): once accepted it runs to its end
   * when its caller leaves, so nothing accepted is lost (a read is abandoned with its caller).
   */
  outlivesCaller?: boolean;
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

/** The eleven A2A 1.0 operations, shared by the JSON-RPC dialect, the HTTP+JSON routes, the gRPC binding and the facade. */
export const V1_OPERATIONS = {
  SendMessage: {
    kind: 'unary',
    outlivesCaller: true,
    schema: SendMessageRequest,
    parse: parseSendMessageRequest,
    ref: messageRef,
    invoke: (env, params, ctx) => {
      env.requireExtensions?.(ctx);
      return env.port.sendMessage(params, ctx);
    },
  } satisfies Operation<SendMessageRequest>,
  SendStreamingMessage: {
    kind: 'stream',
    schema: SendMessageRequest,
    parse: parseSendMessageRequest,
    ref: messageRef,
    invoke: (env, params, ctx) => {
      env.requireExtensions?.(ctx);
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
    outlivesCaller: true,
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
    outlivesCaller: true,
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
    outlivesCaller: true,
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
      if (!env.servedExtendedCard) throw A2AError.extendedCardNotConfigured();
      return env.servedExtendedCard(await env.port.getExtendedAgentCard(ctx));
    },
  } satisfies Operation<GetExtendedAgentCardRequest>,
} as const satisfies Record<V1Method, unknown>;

export type { V1Method };

export const isV1Method = (method: string): method is V1Method => Object.hasOwn(V1_OPERATIONS, method);

/** Whether a call of `method` runs on when its caller leaves (see `outlivesCaller`). */
export const outlivesCaller = (method: V1Method): boolean => (V1_OPERATIONS[method] as Operation<unknown>).outlivesCaller === true;

/** A call validated and ready to run, with the types erased so every edge can drive any operation. */
export type PreparedCall =
  | { kind: 'unary'; ref: TaskRef; params: unknown; run(ctx: CallContext): Promise<unknown> }
  | { kind: 'stream'; ref: TaskRef; params: unknown; run(ctx: CallContext): AsyncIterable<StreamResponse> };

/**
 * Validates params (-32602 naming the field) and the push switch (-32003), then binds the call. Only the
 * known fields are validated and passed on: an unknown one is ignored, as a ProtoJSON parser does.
 */
export function prepareCall(method: V1Method, rawParams: unknown, env: OperationEnv): PreparedCall {
  const operation = V1_OPERATIONS[method] as Operation<unknown>;
  if (operation.push && !env.pushNotifications) throw A2AError.pushNotSupported();
  const params = knownFields(operation.schema, operation.parse ? operation.parse(rawParams) : parseParams(operation.schema, rawParams));
  const ref = operation.ref(params);
  if (operation.kind === 'stream') {
    return { kind: 'stream', ref, params, run: (ctx) => operation.invoke(env, params, ctx) };
  }
  return { kind: 'unary', ref, params, run: (ctx) => operation.invoke(env, params, ctx) };
}

import { z } from 'zod';
import type { CallContext, Upstream } from '../../core/agent-port.js';
import type { V1Method } from '../../mappings/index.js';
import {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '../../model/index.js';
import { checkedResult, validateResult, type ResultCheck } from '../validate-result.js';
import { isWellFormedSendMessageResponse, isWellFormedStreamEvent, isWellFormedTask } from '../../model/well-formed.js';
import { taskAnswerRepaired, taskListRepaired, wrappedRepaired } from '../empty-parts.js';

/** A unary 1.0 method as a client of either binding (JSON-RPC, gRPC) calls it. */
interface V1UnaryMethod<T> extends ResultCheck<T> {
  /** The operation's A2A name: the JSON-RPC method and the name in error texts. */
  operation: V1Method;
}

/** DeleteTaskPushNotificationConfig answers `null` (JSON-RPC), `{}` (as REST does) or google.protobuf.Empty (gRPC, `{}` as JSON). */
const EmptyResult = z.union([z.null(), z.looseObject({})]);

/** The result of each unary method, under its AgentPort name (which is also its gRPC method name). */
interface V1UnaryResults {
  sendMessage: SendMessageResponse;
  getTask: Task;
  listTasks: ListTasksResponse;
  cancelTask: Task;
  createTaskPushNotificationConfig: TaskPushNotificationConfig;
  getTaskPushNotificationConfig: TaskPushNotificationConfig;
  listTaskPushNotificationConfigs: ListTaskPushNotificationConfigsResponse;
  deleteTaskPushNotificationConfig: z.infer<typeof EmptyResult>;
  getExtendedAgentCard: AgentCard;
}

export type V1UnaryName = keyof V1UnaryResults;
export type V1UnaryResult<K extends V1UnaryName> = V1UnaryResults[K];

/**
 * Every unary method of a 1.0 agent: the operation, the result schema, the hand-written check for the
 * answers on the hot path, and for the answers holding messages and artifacts, the repair of those
 * without parts (empty-parts.ts).
 */
export const V1_UNARY_METHODS: { readonly [K in V1UnaryName]: V1UnaryMethod<V1UnaryResults[K]> } = {
  sendMessage: {
    operation: 'SendMessage',
    schema: SendMessageResponse,
    isWellFormed: isWellFormedSendMessageResponse,
    repair: (value) => wrappedRepaired(value),
  },
  getTask: { operation: 'GetTask', schema: Task, isWellFormed: isWellFormedTask, repair: (value) => taskAnswerRepaired(value) },
  listTasks: { operation: 'ListTasks', schema: ListTasksResponse, repair: taskListRepaired },
  cancelTask: { operation: 'CancelTask', schema: Task, isWellFormed: isWellFormedTask, repair: (value) => taskAnswerRepaired(value) },
  createTaskPushNotificationConfig: { operation: 'CreateTaskPushNotificationConfig', schema: TaskPushNotificationConfig },
  getTaskPushNotificationConfig: { operation: 'GetTaskPushNotificationConfig', schema: TaskPushNotificationConfig },
  listTaskPushNotificationConfigs: { operation: 'ListTaskPushNotificationConfigs', schema: ListTaskPushNotificationConfigsResponse },
  deleteTaskPushNotificationConfig: { operation: 'DeleteTaskPushNotificationConfig', schema: EmptyResult },
  getExtendedAgentCard: { operation: 'GetExtendedAgentCard', schema: AgentCard },
};

/** The streaming methods, under their AgentPort (and gRPC) names. */
export const V1_STREAMING_METHODS = {
  sendStreamingMessage: { operation: 'SendStreamingMessage' },
  subscribeToTask: { operation: 'SubscribeToTask' },
} as const satisfies Record<string, { operation: V1Method }>;

export type V1StreamingName = keyof typeof V1_STREAMING_METHODS;

/** A unary answer of method `name`, checked (-32006 naming the field when it is not one). */
export function unaryResult<K extends V1UnaryName>(name: K, value: unknown): V1UnaryResult<K> {
  const method = V1_UNARY_METHODS[name];
  return checkedResult(method, value, `${method.operation} result`);
}

/**
 * One event of a 1.0 stream, checked like a unary answer; undefined for an event the repair leaves out
 * (an artifact-update without parts: empty-parts.ts), which the stream skips.
 */
export function streamEvent(value: unknown): StreamResponse | undefined {
  if (isWellFormedStreamEvent(value)) return value;
  const repaired = wrappedRepaired(value);
  if (repaired === undefined) return undefined;
  return isWellFormedStreamEvent(repaired) ? repaired : validateResult(StreamResponse, repaired, 'stream event');
}

/** How a client of one binding makes a call; the answer is checked by the caller of these (unaryResult, streamEvent). */
export interface V1Calls {
  unary<K extends V1UnaryName>(name: K, params: unknown, ctx: CallContext): Promise<V1UnaryResult<K>>;
  stream(name: V1StreamingName, params: unknown, ctx: CallContext): AsyncIterable<StreamResponse>;
}

/** The AgentPort of a 1.0 client, every method one call of `calls` (the binding's own part is only how to call). */
export function v1AgentPort({ unary, stream }: V1Calls): Omit<Upstream, 'fetchCard' | 'close'> {
  return {
    sendMessage: (req, ctx) => unary('sendMessage', req, ctx),
    sendStreamingMessage: (req, ctx) => stream('sendStreamingMessage', req, ctx),
    getTask: (req, ctx) => unary('getTask', req, ctx),
    listTasks: (req, ctx) => unary('listTasks', req, ctx),
    cancelTask: (req, ctx) => unary('cancelTask', req, ctx),
    subscribeToTask: (req, ctx) => stream('subscribeToTask', req, ctx),
    createTaskPushNotificationConfig: (req, ctx) => unary('createTaskPushNotificationConfig', req, ctx),
    getTaskPushNotificationConfig: (req, ctx) => unary('getTaskPushNotificationConfig', req, ctx),
    listTaskPushNotificationConfigs: (req, ctx) => unary('listTaskPushNotificationConfigs', req, ctx),
    async deleteTaskPushNotificationConfig(req, ctx) {
      await unary('deleteTaskPushNotificationConfig', req, ctx);
    },
    getExtendedAgentCard: (ctx) => unary('getExtendedAgentCard', {}, ctx),
  };
}

import * as proto from '@a2a-js/sdk';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import type { V1Method } from '../mappings/vocabulary.js';

/** An SDK protobuf message type seen from the edge: ProtoJSON in, ProtoJSON out. */
interface ProtoJson {
  toJSON(message: never): unknown;
  fromJSON(json: never): unknown;
}

/** Delete answers google.protobuf.Empty, which the SDK has no JSON codec for (there is nothing in it). */
const EMPTY: ProtoJson = { toJSON: () => ({}), fromJSON: () => ({}) };

export interface GrpcMethod {
  /** The operation's A2A name (the 1.0 surface's table and the JSON-RPC method). */
  operation: V1Method;
  request: ProtoJson;
  response: ProtoJson;
}

export type GrpcMethodName = keyof typeof A2AService;

/**
 * Every `lf.a2a.v1.A2AService` method with the operation it runs and the SDK codecs of its messages.
 * The gRPC payloads are the SDK's protobuf objects; their `toJSON`/`fromJSON` are ProtoJSON, which is
 * exactly the internal model, so the gRPC surface and the gRPC upstream client convert here and
 * nowhere else.
 */
export const GRPC_METHODS: Record<GrpcMethodName, GrpcMethod> = {
  sendMessage: { operation: 'SendMessage', request: proto.SendMessageRequest, response: proto.SendMessageResponse },
  sendStreamingMessage: { operation: 'SendStreamingMessage', request: proto.SendMessageRequest, response: proto.StreamResponse },
  getTask: { operation: 'GetTask', request: proto.GetTaskRequest, response: proto.Task },
  listTasks: { operation: 'ListTasks', request: proto.ListTasksRequest, response: proto.ListTasksResponse },
  cancelTask: { operation: 'CancelTask', request: proto.CancelTaskRequest, response: proto.Task },
  subscribeToTask: { operation: 'SubscribeToTask', request: proto.SubscribeToTaskRequest, response: proto.StreamResponse },
  createTaskPushNotificationConfig: {
    operation: 'CreateTaskPushNotificationConfig',
    request: proto.TaskPushNotificationConfig,
    response: proto.TaskPushNotificationConfig,
  },
  getTaskPushNotificationConfig: {
    operation: 'GetTaskPushNotificationConfig',
    request: proto.GetTaskPushNotificationConfigRequest,
    response: proto.TaskPushNotificationConfig,
  },
  listTaskPushNotificationConfigs: {
    operation: 'ListTaskPushNotificationConfigs',
    request: proto.ListTaskPushNotificationConfigsRequest,
    response: proto.ListTaskPushNotificationConfigsResponse,
  },
  getExtendedAgentCard: { operation: 'GetExtendedAgentCard', request: proto.GetExtendedAgentCardRequest, response: proto.AgentCard },
  deleteTaskPushNotificationConfig: {
    operation: 'DeleteTaskPushNotificationConfig',
    request: proto.DeleteTaskPushNotificationConfigRequest,
    response: EMPTY,
  },
};

/** A decoded request as ProtoJSON (what the 1.0 surface validates). */
export const requestJson = (method: GrpcMethod, message: unknown): unknown => method.request.toJSON(message as never);

/** A result of the internal model as the SDK message the service definition serializes. */
export const responseMessage = (method: GrpcMethod, result: unknown): unknown => method.response.fromJSON((result ?? {}) as never);

/** A request of the internal model as the SDK message to send (the upstream client's side). */
export const requestMessage = (method: GrpcMethod, params: unknown): unknown => method.request.fromJSON((params ?? {}) as never);

/** A decoded answer as ProtoJSON, for the upstream client to validate. */
export const responseJson = (method: GrpcMethod, message: unknown): unknown => method.response.toJSON(message as never);

export { A2AService };

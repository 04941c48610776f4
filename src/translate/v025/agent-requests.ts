import { z } from 'zod';
import {
  CancelTaskRequest,
  CreateTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  Message,
  SendMessageRequest,
  SubscribeToTaskRequest,
} from '../../model/index.js';

/**
 * The 1.0 requests as they reach an older agent's client: the caller's ids already mapped back to the
 * agent's own (upstream/agent-ids-mapped.ts), which need not follow the gateway's id rule ("session/42 ü").
 * Everything else is checked as the model checks it.
 */
const AgentId = z.string().min(1);

export const AgentSendMessageRequest = SendMessageRequest.extend({
  message: Message.extend({ contextId: z.string().optional(), taskId: z.string().optional() }),
});
export const AgentGetTaskRequest = GetTaskRequest.extend({ id: AgentId });
export const AgentCancelTaskRequest = CancelTaskRequest.extend({ id: AgentId });
export const AgentSubscribeToTaskRequest = SubscribeToTaskRequest.extend({ id: AgentId });
export const AgentCreatePushConfigRequest = CreateTaskPushNotificationConfigRequest.extend({ taskId: AgentId });
export const AgentPushConfigRequest = GetTaskPushNotificationConfigRequest.extend({ taskId: AgentId });
export const AgentListPushConfigsRequest = ListTaskPushNotificationConfigsRequest.extend({ taskId: AgentId });

import type { Upstream } from '../core/agent-port.js';
import { withFields, type StreamResponse } from '../model/index.js';
import {
  agentIdFromV1,
  agentIdToV1,
  listTasksRequestIds,
  listTasksResponseIds,
  pushConfigIds,
  pushConfigListIds,
  pushConfigRequestIds,
  sendRequestIds,
  sendResponseIds,
  streamResponseIds,
  taskIds,
  taskRequestIds,
} from '../translate/index.js';

async function* eventIdsToV1(events: AsyncIterable<StreamResponse>): AsyncGenerator<StreamResponse> {
  for await (const event of events) yield streamResponseIds(event, agentIdToV1);
}

/**
 * A 0.2.5 or 0.3 agent's client whose task and context ids the gateway's side sees as protocol ids
 * (src/translate/agent-ids.ts): every request's ids go back to the agent's own, every answer's ids are
 * mapped to the 1.0 side. The client inside works with the agent's ids throughout, so its fallbacks (the
 * request's contextId for an answer without one) and follow-up calls (GetTask of the task a Message
 * names) stay in the agent's terms.
 */
export function withAgentIdsMapped<T extends Upstream>(upstream: T): T {
  return withFields(upstream, {
    sendMessage: async (req, ctx) => sendResponseIds(await upstream.sendMessage(sendRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    sendStreamingMessage: (req, ctx) => eventIdsToV1(upstream.sendStreamingMessage(sendRequestIds(req, agentIdFromV1), ctx)),
    getTask: async (req, ctx) => taskIds(await upstream.getTask(taskRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    listTasks: async (req, ctx) => listTasksResponseIds(await upstream.listTasks(listTasksRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    cancelTask: async (req, ctx) => taskIds(await upstream.cancelTask(taskRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    subscribeToTask: (req, ctx) => eventIdsToV1(upstream.subscribeToTask(taskRequestIds(req, agentIdFromV1), ctx)),
    createTaskPushNotificationConfig: async (req, ctx) =>
      pushConfigIds(await upstream.createTaskPushNotificationConfig(pushConfigRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    getTaskPushNotificationConfig: async (req, ctx) =>
      pushConfigIds(await upstream.getTaskPushNotificationConfig(pushConfigRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    listTaskPushNotificationConfigs: async (req, ctx) =>
      pushConfigListIds(await upstream.listTaskPushNotificationConfigs(pushConfigRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    deleteTaskPushNotificationConfig: (req, ctx) => upstream.deleteTaskPushNotificationConfig(pushConfigRequestIds(req, agentIdFromV1), ctx),
  } satisfies Partial<Upstream>);
}

import type { Upstream } from '../core/agent-port.js';
import { A2AError, withFields, type StreamResponse } from '../model/index.js';
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

/**
 * An error the agent or its client raised naming the ids of the call (`Task session/42 ü not found`), named
 * as the caller knows them: the encoded ids it asked with. The error is the call's own, so it is changed
 * in place.
 */
function inCallersIds(error: unknown, agentIds: readonly (string | undefined)[]): unknown {
  if (!(error instanceof A2AError)) return error;
  for (const agentId of agentIds) {
    if (!agentId) continue;
    const callers = agentIdToV1Quietly(agentId);
    if (callers === agentId) continue;
    error.message = error.message.replaceAll(agentId, callers);
    for (const key of ['taskId', 'contextId']) if (error.metadata[key] === agentId) error.metadata[key] = callers;
  }
  return error;
}

/** The caller's id for an agent's id it asked with (which fits, since it came encoded). */
function agentIdToV1Quietly(agentId: string): string {
  try {
    return agentIdToV1(agentId, 'task id');
  } catch {
    return agentId;
  }
}

async function named<T>(call: Promise<T>, agentIds: readonly (string | undefined)[]): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw inCallersIds(error, agentIds);
  }
}

async function* eventIdsToV1(events: AsyncIterable<StreamResponse>, agentIds: readonly (string | undefined)[]): AsyncGenerator<StreamResponse> {
  try {
    for await (const event of events) yield streamResponseIds(event, agentIdToV1);
  } catch (error) {
    throw inCallersIds(error, agentIds);
  }
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
    async sendMessage(req, ctx) {
      const sent = sendRequestIds(req, agentIdFromV1);
      const ids = [sent.message.taskId, sent.message.contextId];
      return sendResponseIds(await named(upstream.sendMessage(sent, ctx), ids), agentIdToV1);
    },
    sendStreamingMessage(req, ctx) {
      const sent = sendRequestIds(req, agentIdFromV1);
      return eventIdsToV1(upstream.sendStreamingMessage(sent, ctx), [sent.message.taskId, sent.message.contextId]);
    },
    getTask: async (req, ctx) => {
      const asked = taskRequestIds(req, agentIdFromV1);
      return taskIds(await named(upstream.getTask(asked, ctx), [asked.id]), agentIdToV1);
    },
    listTasks: async (req, ctx) => listTasksResponseIds(await upstream.listTasks(listTasksRequestIds(req, agentIdFromV1), ctx), agentIdToV1),
    cancelTask: async (req, ctx) => {
      const asked = taskRequestIds(req, agentIdFromV1);
      return taskIds(await named(upstream.cancelTask(asked, ctx), [asked.id]), agentIdToV1);
    },
    subscribeToTask(req, ctx) {
      const asked = taskRequestIds(req, agentIdFromV1);
      return eventIdsToV1(upstream.subscribeToTask(asked, ctx), [asked.id]);
    },
    createTaskPushNotificationConfig: async (req, ctx) => {
      const asked = pushConfigRequestIds(req, agentIdFromV1);
      return pushConfigIds(await named(upstream.createTaskPushNotificationConfig(asked, ctx), [asked.taskId]), agentIdToV1);
    },
    getTaskPushNotificationConfig: async (req, ctx) => {
      const asked = pushConfigRequestIds(req, agentIdFromV1);
      return pushConfigIds(await named(upstream.getTaskPushNotificationConfig(asked, ctx), [asked.taskId]), agentIdToV1);
    },
    listTaskPushNotificationConfigs: async (req, ctx) => {
      const asked = pushConfigRequestIds(req, agentIdFromV1);
      return pushConfigListIds(await named(upstream.listTaskPushNotificationConfigs(asked, ctx), [asked.taskId]), agentIdToV1);
    },
    deleteTaskPushNotificationConfig: (req, ctx) => {
      const asked = pushConfigRequestIds(req, agentIdFromV1);
      return named(upstream.deleteTaskPushNotificationConfig(asked, ctx), [asked.taskId]);
    },
  } satisfies Partial<Upstream>);
}

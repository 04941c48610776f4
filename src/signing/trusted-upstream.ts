import type { AgentPort } from '../core/agent-port.js';
import { A2AError } from '../model/index.js';

export const UNTRUSTED_UPSTREAM_MESSAGE = "The upstream agent is not available: its card's signature does not verify";

// eslint-disable-next-line require-yield
async function* refusedStream(): AsyncGenerator<never> {
  throw A2AError.internal(UNTRUSTED_UPSTREAM_MESSAGE);
}

/**
 * The upstream port, refusing every call (-32603, before anything is sent) while the upstream's
 * latest card did not verify: under `card-verification.required` the gateway does not talk to an
 * agent it cannot authenticate.
 */
export function onlyWhenVerified(port: AgentPort, verified: () => boolean): AgentPort {
  const unary =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      verified() ? call(...args) : Promise.reject(A2AError.internal(UNTRUSTED_UPSTREAM_MESSAGE));
  return {
    sendMessage: unary((request, ctx) => port.sendMessage(request, ctx)),
    sendStreamingMessage: (request, ctx) => (verified() ? port.sendStreamingMessage(request, ctx) : refusedStream()),
    getTask: unary((request, ctx) => port.getTask(request, ctx)),
    listTasks: unary((request, ctx) => port.listTasks(request, ctx)),
    cancelTask: unary((request, ctx) => port.cancelTask(request, ctx)),
    subscribeToTask: (request, ctx) => (verified() ? port.subscribeToTask(request, ctx) : refusedStream()),
    createTaskPushNotificationConfig: unary((request, ctx) => port.createTaskPushNotificationConfig(request, ctx)),
    getTaskPushNotificationConfig: unary((request, ctx) => port.getTaskPushNotificationConfig(request, ctx)),
    listTaskPushNotificationConfigs: unary((request, ctx) => port.listTaskPushNotificationConfigs(request, ctx)),
    deleteTaskPushNotificationConfig: unary((request, ctx) => port.deleteTaskPushNotificationConfig(request, ctx)),
    getExtendedAgentCard: unary((ctx) => port.getExtendedAgentCard(ctx)),
  };
}

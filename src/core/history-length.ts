import { withFields, withHistoryLength, type GetTaskRequest, type SendMessageRequest, type StreamResponse } from '../model/index.js';
import type { AgentPort } from './agent-port.js';
import { mapIterable } from './iterables.js';
import { overlay } from './overlay.js';

/**
 * A caller's `historyLength` applied by the gateway to what it answers, and to nothing else: A2A 1.0 bounds
 * "the task's history ... in the response" (§3.2.4, the same for every operation; absent: all of it, 0: none).
 * The agent is asked without the bound, and the answer is cut here, over the whole gateway (the core and the
 * push service), so the registry, in-process subscribers and push notifications keep the whole history:
 *
 * - SendMessage and SendStreamingMessage: an agent asked with the bound cuts (a2a-js does, each streamed Task
 *   too), and its Task would replace the recorded task with the cut history: the opening message lost, a
 *   follow-up's turn missing until the next whole answer, and, of a 0.2.5 agent (which never stores a
 *   follow-up), the user's follow-up gone for good. Agents that do not cut (iac-code, 0.2.5 agents on a
 *   stream) are cut here all the same.
 * - GetTask with a bound above 0: the last messages of the task as the gateway keeps it, the caller's messages
 *   an agent leaves out of its history included (caller-messages.ts), which a cut answer has no place for.
 *   GetTask with 0 asks with 0: no history to read, and the registry's refresh of running tasks stays cheap;
 *   the answer is cut to none here all the same, as an agent may read 0 as no bound (a2a-js 0.3: slice(-0)).
 *
 * The 0.2.5 facade asks without a bound at its own edge (withoutHistoryLength, turn-recovery.ts): its reply
 * reducer reads a turn's messages from a Task's history, and 0.2.5 gives `historyLength` no meaning on a stream.
 */
export function boundingHistory<P extends AgentPort>(inner: P): P {
  return overlay(inner, {
    async sendMessage(request, ctx) {
      const historyLength = request.configuration?.historyLength;
      if (historyLength === undefined) return inner.sendMessage(request, ctx);
      const response = await inner.sendMessage(withoutHistoryLength(request), ctx);
      return 'task' in response ? { task: withHistoryLength(response.task, historyLength) } : response;
    },

    sendStreamingMessage(request, ctx): AsyncIterable<StreamResponse> {
      const historyLength = request.configuration?.historyLength;
      if (historyLength === undefined) return inner.sendStreamingMessage(request, ctx);
      const events = inner.sendStreamingMessage(withoutHistoryLength(request), ctx);
      return mapIterable(events, (event) => ('task' in event ? { task: withHistoryLength(event.task, historyLength) } : event));
    },

    async getTask(request, ctx) {
      const historyLength = request.historyLength;
      if (historyLength === undefined) return inner.getTask(request, ctx);
      // 0 is passed on, and the answer cut all the same: an agent may read it as no bound (a2a-js 0.3, slice(-0)).
      if (historyLength <= 0) return withHistoryLength(await inner.getTask(request, ctx), historyLength);
      return withHistoryLength(await inner.getTask(wholeHistory(request), ctx), historyLength);
    },
  } satisfies Partial<AgentPort>);
}

/** The request without its history bound, so the agent's Task events hold the whole history (nothing left: no configuration). */
export function withoutHistoryLength(request: SendMessageRequest): SendMessageRequest {
  if (request.configuration?.historyLength === undefined) return request;
  const { historyLength: _cutHere, ...configuration } = request.configuration;
  if (Object.keys(configuration).length > 0) return withFields(request, { configuration });
  const { configuration: _empty, ...rest } = request;
  return rest;
}

function wholeHistory(request: GetTaskRequest): GetTaskRequest {
  const { historyLength: _cutHere, ...whole } = request;
  return whole;
}

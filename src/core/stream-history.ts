import { withFields, withHistoryLength, type SendMessageRequest, type StreamResponse } from '../model/index.js';
import type { AdmittedPort, Entry } from './admission.js';
import { mapIterable } from './iterables.js';
import { overlay } from './overlay.js';

/**
 * SendStreamingMessage's `configuration.historyLength` applied by the gateway to every Task event it
 * relays, as to a blocking answer's Task: A2A 1.0 bounds "the task's history ... in the response" (§3.2.4,
 * the same for every operation) and a2a-js 1.x's own server cuts each Task of a stream so. Agents do not
 * all do it (iac-code and 0.2.5 agents send the whole history), so the gateway does, in this one place.
 *
 * The agent is asked without the bound, and the cut happens above recording and fan-out: the registry
 * and in-process subscribers keep the whole history. An agent that cut it itself (a2a-js) would have had
 * the stream's Task replace the recorded task with an empty history, the opening message lost.
 *
 * The 0.2.5 facade asks without a bound at its own edge (withoutHistoryLength, turn-recovery.ts): its reply
 * reducer reads a turn's messages from a Task's history, and 0.2.5 gives `historyLength` no meaning on a stream.
 */
export function boundingStreamHistory(inner: AdmittedPort): AdmittedPort {
  return overlay(inner, {
    sendStreamingMessage(request, ctx, entry?: Entry): AsyncIterable<StreamResponse> {
      const historyLength = request.configuration?.historyLength;
      if (historyLength === undefined) return inner.sendStreamingMessage(request, ctx, entry);
      const events = inner.sendStreamingMessage(withoutHistoryLength(request), ctx, entry);
      return mapIterable(events, (event) => ('task' in event ? { task: withHistoryLength(event.task, historyLength) } : event));
    },
  });
}

/** The request without its history bound, so the agent's Task events hold the whole history. */
export function withoutHistoryLength(request: SendMessageRequest): SendMessageRequest {
  if (request.configuration?.historyLength === undefined) return request;
  const { historyLength: _cutHere, ...configuration } = request.configuration;
  return withFields(request, { configuration });
}

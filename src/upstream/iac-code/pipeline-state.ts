import type { Dispatcher } from 'undici';
import { isRecord, type JsonObject } from '../../model/json.js';
import { getJson } from '../card-fetch.js';

/**
 * iac-code's pipeline recovery route (`GET /iac-code/pipeline/state`), the `stateEndpoint` its card's
 * pipeline-events extension advertises with `supportsReplay` (docs/iac-code.md, "Pipeline mode"). Read in
 * iac-code's source, not captured: it answers `{snapshot, events}`, where `events` are the envelopes of the
 * task's journal (every envelope iac-code published, kept on disk for the session, sorted by `sequence`)
 * whose `sequence` is above `afterSequence`: the same objects, same keys and numbering, as the ones it put in
 * status updates' metadata. The task's own store keeps only the latest update's envelopes, so this is the one
 * place the words said between a broken stream and a resubscription's snapshot can be read again.
 */

export const PIPELINE_STATE_PATH = '/iac-code/pipeline/state';

/** Where iac-code is reached: the same base URL, pool and credentials as the gateway's other calls to it. */
export interface PipelineStateUpstream {
  url: string;
  dispatcher: Dispatcher;
  /** The gateway's upstream credentials (`upstream.auth`) as headers: the route sits behind iac-code's A2A auth. */
  headers: Record<string, string>;
  /** `upstream.request-timeout-ms` (0: none). */
  timeoutMs: number;
}

export interface PipelineStateReader {
  /**
   * The envelopes iac-code journaled for the task after `afterSequence`, in its order; undefined when they
   * cannot be had whole: no such route (an older iac-code), the task unknown to it (404), any other answer
   * than a JSON object with an `events` array, a transport failure or the time bound. Never throws.
   */
  eventsAfter(ref: { taskId: string; contextId: string }, afterSequence: number, signal?: AbortSignal): Promise<JsonObject[] | undefined>;
}

/**
 * At most this long for one read: the recovery waits for it before it shows what follows the break, and a
 * turn is better told "may be missing" soon than kept waiting on a route that does not answer.
 */
export const PIPELINE_STATE_MAX_MS = 3_000;

export function pipelineStateReader(upstream: PipelineStateUpstream): PipelineStateReader {
  const base = upstream.url.replace(/\/+$/, '');
  const timeoutMs = upstream.timeoutMs > 0 ? Math.min(upstream.timeoutMs, PIPELINE_STATE_MAX_MS) : PIPELINE_STATE_MAX_MS;
  return {
    async eventsAfter(ref, afterSequence, signal) {
      // iac-code takes ASCII decimal only (a float's `.0` is refused): its numbers arrive as floats.
      const after = Math.max(0, Math.floor(afterSequence));
      const query = new URLSearchParams({ contextId: ref.contextId, taskId: ref.taskId, afterSequence: String(after) });
      if (signal?.aborted) return undefined;
      try {
        // Bounded by getJson's own timer (timed-signal.ts: not AbortSignal.any with AbortSignal.timeout, which
        // a garbage collection can leave never firing), and the recovery's signal.
        const answer = await getJson(`${base}${PIPELINE_STATE_PATH}?${query.toString()}`, {
          dispatcher: upstream.dispatcher,
          headers: upstream.headers,
          timeoutMs,
          ...(signal ? { signal } : {}),
        });
        return answer.status === 200 ? replayedEvents(answer.body) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The `events` of a 200 answer. iac-code's journal is not cut (no truncation flag in its source); a body
 * that says it was (`truncated`, `hasMore`) is read as no answer all the same, rather than as all there is.
 */
function replayedEvents(body: unknown): JsonObject[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.events)) return undefined;
  if (body.truncated === true || body.hasMore === true) return undefined;
  return body.events.filter(isRecord);
}

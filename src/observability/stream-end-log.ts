import type { Logger } from 'pino';
import { A2AError } from '../model/index.js';
import { failureCause, isServerFailure } from '../upstream/failure-cause.js';
import type { RequestLogFields } from '../surfaces/shared/env.js';
import type { SseEnd } from '../surfaces/shared/sse-channel.js';
import { observeSse } from '../surfaces/shared/sse.js';

/**
 * How a caller's stream ended, as the `stream ended` line says it: `completed` (the turn's stream ran to its
 * end), `caller_left` (the caller hung up first), `timeout` (the gateway's bound on the agent passed:
 * `first-event-timeout-ms`, `stream-idle-timeout-ms`), `error` (the agent failed it, or the gateway could not go
 * on), `shutdown` (the drain ended it).
 */
export type StreamEnded = 'completed' | 'caller_left' | 'timeout' | 'error' | 'shutdown';

/** The hop failures of a bound that passed: the call's (`timedOut`), the silence of a stream's body (`quiet`). */
const TIMEOUTS: ReadonlySet<string | undefined> = new Set(['timedOut', 'quiet']);

function endedOf(end: SseEnd): StreamEnded {
  if (end.how !== 'failed') return end.how;
  return end.error instanceof A2AError && TIMEOUTS.has(end.error.hopFailure) ? 'timeout' : 'error';
}

/** Why it failed, as a request line says it (its error code; the cause when it was no fault of the caller's). */
function failureOf(error: unknown): Record<string, unknown> {
  if (!(error instanceof A2AError)) return {};
  return isServerFailure(error) ? { errorCode: error.code, ...failureCause(error) } : { errorCode: error.code };
}

/**
 * A stream's request line is written when its headers go out (log.ts); this writes one more line, at info, when
 * it ends: `stream ended`, with the request's `reqId` (the logger's), surface, method, task and context, the whole
 * duration, the events written and how it ended (`ended`: StreamEnded). Told by the gateway's own SSE channel at
 * its end (nothing per event; it counts its frames); a body relayed as the agent sent it (a pass-through to a
 * 0.2.5 or 0.3 agent) is bytes, not events, and gets no such line.
 */
export function logStreamEnd(response: Response, logger: Pick<Logger, 'info'>, started: number, fields: RequestLogFields): void {
  observeSse(response.body, {
    end(end) {
      // Unset fields (a stream with no task yet) are undefined, which the JSON line leaves out.
      logger.info(
        {
          surface: fields.surface,
          method: fields.method,
          client: fields.client,
          taskId: fields.taskId,
          contextId: fields.contextId,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          events: end.events,
          ended: endedOf(end),
          ...(end.how === 'failed' ? failureOf(end.error) : {}),
        },
        'stream ended',
      );
    },
  });
}

import type { Logger } from 'pino';
import { endedWithCause } from './facade-answer-log.js';
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

type StreamEndLogger = Pick<Logger, 'info' | 'warn' | 'isLevelEnabled'>;

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

/** What a stream's caller was last shown: the task state, and of a facade turn failed or rejected why (its `cause`). */
interface StreamShown {
  state: string;
  cause?: string;
}

/**
 * What a stream's caller was last shown, as its surface noted it on the request's fields: a 1.0 stream the state
 * of the last event that had one (call-pipeline.ts), the facade at its stream's end (facade-answer-log.ts,
 * noteFacadeStreamShown). A `cause` is a facade turn's only beside a state that has one: a facade call that failed
 * before its stream began (answered as one error frame) notes its own on the request line.
 */
function shownOf(fields: RequestLogFields): StreamShown | undefined {
  const { state } = fields;
  if (state === undefined) return undefined;
  return fields.surface === 'v025' && endedWithCause(state) ? { state, cause: fields.cause } : { state };
}

/**
 * How a stream ended as its caller read it. A facade stream whose turn the agent failed (or whose agent broke and
 * could not be recovered) renders the failure as events and ends normally: it ended `error`, with the state its
 * caller was shown and why (`cause`, as a facade `message/send`'s request line says it).
 */
function endFields(end: SseEnd, shown: StreamShown | undefined): Record<string, unknown> {
  const state = shown !== undefined ? { state: shown.state } : {};
  if (end.how === 'failed') return { ended: endedOf(end), ...failureOf(end.error), ...state };
  if (end.how === 'completed' && shown?.cause !== undefined) return { ended: 'error', state: shown.state, cause: shown.cause };
  return { ended: endedOf(end), ...state };
}

/**
 * A stream's request line is written when its headers go out (log.ts); this writes one more line when it ends:
 * `stream ended`, with the request's `reqId` (the logger's), surface, method, task and context, the whole
 * duration, the events written, how it ended (`ended`: StreamEnded) and the task state its caller was last shown
 * (`state`). At info; at warn when it ended for a cause not the caller's (`cause`: the agent's stream broke, its
 * bound passed, the facade's turn failed), as a failed call's request line is. Told by the gateway's own
 * SSE channel at its end, nothing per frame (what a facade stream showed is what the facade noted on the request's
 * fields by then); a body relayed as the agent sent it (a pass-through to a 0.2.5 or 0.3 agent) is bytes, not
 * events, and gets such a line only when the relay itself ends it (logRelayCut).
 */
export function logStreamEnd(response: Response, logger: StreamEndLogger, started: number, fields: RequestLogFields): void {
  observeSse(response.body, { end: (end) => writeStreamEnd(logger, started, fields, endFields(end, shownOf(fields)), end.events) });
}

/**
 * The `stream ended` line of a relayed stream the relay ended itself with its error frame (the agent silent past
 * `stream-idle-timeout-ms`: src/upstream/v025/passthrough.ts), which no SSE channel of the gateway's observes: at warn,
 * `ended: timeout` with its error code and cause, as a translated stream cut so is told. Its events are the agent's
 * bytes, not counted.
 */
export function logRelayCut(logger: StreamEndLogger, started: number, fields: RequestLogFields, error: A2AError): void {
  writeStreamEnd(logger, started, fields, endFields({ how: 'failed', events: 0, error }, undefined), undefined);
}

/**
 * The one line of a relayed answer that is no stream (a unary answer over 64 KiB, handed on unchecked) whose body broke
 * or went quiet after part of it went out, and whose caller's connection was cut for it: `relayed answer cut`, at warn,
 * as a relayed stream so ended is told (`ended`: timeout or error, its error code and cause), without a stack.
 */
export function logRelayedAnswerCut(logger: StreamEndLogger, started: number, fields: RequestLogFields, error: A2AError): void {
  writeStreamEnd(logger, started, fields, endFields({ how: 'failed', events: 0, error }, undefined), undefined, 'relayed answer cut');
}

function writeStreamEnd(
  logger: StreamEndLogger,
  started: number,
  fields: RequestLogFields,
  ended: Record<string, unknown>,
  events: number | undefined,
  msg = 'stream ended',
): void {
  const level = ended.cause !== undefined ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  // Unset fields (a stream with no task yet) are undefined, which the JSON line leaves out.
  logger[level](
    {
      surface: fields.surface,
      method: fields.method,
      client: fields.client,
      taskId: fields.taskId,
      contextId: fields.contextId,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      events,
      ...ended,
    },
    msg,
  );
}

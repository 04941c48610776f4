import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { UpstreamOutcome } from '../../../observability/metrics.js';
import { timedUpstreamCall } from '../../../observability/metrics-port.js';
import { relayedErrorFields } from '../../../observability/relayed-error.js';
import { watchedErrorEvents } from '../../../observability/relayed-stream-errors.js';
import { isStream } from '../../../observability/body-end.js';
import { logRelayCut, logRelayedAnswerCut } from '../../../observability/stream-end-log.js';
import type { A2AError } from '../../../model/index.js';
import { refusesCredentials } from '../../../upstream/upstream-errors.js';
import type { RelayWatch } from '../../../upstream/v025/passthrough.js';
import type { GatewayEnv, RequestLogFields } from '../../shared/env.js';
import { noteLog } from '../../shared/log-fields.js';
import type { V025FacadeDeps, V025Relay } from '../deps.js';
import { STREAMING_METHODS } from '../errors.js';
import { relayedAnswer } from './relay-answer.js';

/**
 * How a relayed call went at the agent, counted as the upstream clients count theirs: its refusal of the gateway's
 * credentials (HTTP 401/403: `refused`), another status that is not 2xx, or the agent's own JSON-RPC error under any
 * status (`error`; the error goes on to the caller), else `ok`.
 */
const answerOutcome = (status: number, agentError: boolean): UpstreamOutcome =>
  refusesCredentials(status) ? 'refused' : status >= 200 && status < 300 && !agentError ? 'ok' : 'error';

/** What cutLogged reads of the Node response @hono/node-server serves the request with. */
interface CallerConnection {
  readonly headersSent: boolean;
  destroy(): unknown;
}

/** The caller's connection under @hono/node-server; absent when the app is called in-process (app.request). */
function callerConnection(c: Context<GatewayEnv>): CallerConnection | undefined {
  const outgoing = (c.env as { outgoing?: Partial<CallerConnection> } | undefined)?.outgoing;
  return typeof outgoing?.destroy === 'function' && typeof outgoing.headersSent === 'boolean' ? (outgoing as CallerConnection) : undefined;
}

/**
 * The `stream ended` line of a relayed stream the relay cuts (the agent quiet past `stream-idle-timeout-ms`) or that
 * breaks mid-way (the agent's connection reset or closed), on the request's logger and fields: made here, not where
 * `c` is in scope, so that an open stream does not keep the Hono context (docs/performance.md).
 */
function endLogged(logger: Logger | undefined, fields: RequestLogFields | undefined, method: string): StreamWatch | undefined {
  if (!logger || !STREAMING_METHODS.has(method)) return undefined;
  const started = performance.now();
  let cutCode: number | undefined;
  const ended = (error: A2AError) => {
    cutCode = error.code;
    logRelayCut(logger, started, fields ?? {}, error);
  };
  return { watch: { cutQuiet: ended, broke: ended }, endedWith: (scanned) => scanned.then((code) => cutCode ?? code) };
}

/** A relayed stream's watch, and the error code it ended with. */
interface StreamWatch {
  watch: RelayWatch;
  /**
   * The relay's own cut's code, else the last error event the scan found (`scanned`). The same on a stream as it came:
   * the relay's frame is its last event. Not on one the agent compressed: the relay's frame, appended uncompressed,
   * is no part of what the scan can decode.
   */
  endedWith(scanned: Promise<number | undefined>): Promise<number | undefined>;
}

/** A unary answer's watch, and the error code its body ended with once it ended (undefined: read whole, or its caller left). */
interface UnaryWatch {
  watch: RelayWatch;
  /** Undefined when the body had ended by the time it is asked (every answer the facade read whole to judge it). */
  endedLater(): Promise<number | undefined> | undefined;
}

/**
 * A unary answer handed on unchecked (over 64 KiB) whose body breaks or goes quiet mid-way: its caller's connection
 * cut (what was sent cannot be ended well) and the `relayed answer cut` line written, once the answer's headers went
 * out (before, the facade still reads it, and the failure is its caller's error answer); such an answer is counted at
 * its body's end, by the cut's error code (endedLater). Made apart from `c`, as endLogged.
 */
function cutLogged(logger: Logger | undefined, fields: RequestLogFields | undefined, caller: CallerConnection | undefined): UnaryWatch | undefined {
  if (!logger || !caller) return undefined;
  const started = performance.now();
  let ended = false;
  let tell: ((errorCode: number | undefined) => void) | undefined;
  return {
    watch: {
      cutMidway(error) {
        if (!caller.headersSent) return false;
        logRelayedAnswerCut(logger, started, fields ?? {}, error);
        caller.destroy();
        return true;
      },
      ended(failure) {
        ended = true;
        tell?.(failure?.code);
      },
    },
    endedLater: () => (ended ? undefined : new Promise((resolve) => (tell = resolve))),
  };
}

/**
 * One call relayed to a 0.2.5/0.3 agent and its answer as the facade sends it on (relay-answer.ts), observed as a
 * call through the core is: timed and counted as an upstream call (a2a_bridge_upstream_requests_total and
 * upstream_duration_seconds under its 0.2.5 method; its time in the request's record, for gateway_added_seconds), up to
 * the agent's answer judged (a stream: its headers); the agent's own JSON-RPC error, relayed as it came, is noted on
 * the request line (relayed-error.ts) and counted `error`; what the relay throws (the agent out of reach, an answer in no
 * protocol's shape) is the caller's error answer, which the call pipeline notes on the request line
 * (call-pipeline.ts runCall); a stream the relay cuts, or that breaks mid-way, has its `stream ended` line.
 */
export function observedRelay(relay: V025Relay, method: string, body: string, c: Context<GatewayEnv>, deps: V025FacadeDeps): Promise<Response> {
  const request = c.req.raw;
  const unary = STREAMING_METHODS.has(method) ? undefined : cutLogged(c.get('logger'), c.get('logFields'), callerConnection(c));
  const stream = unary ? undefined : endLogged(c.get('logger'), c.get('logFields'), method);
  const watch = unary ? unary.watch : stream?.watch;
  let status = 0;
  let agentError = false;
  // The error code a body still coming when its answer is returned ended with, once it ended: a stream's error event,
  // a large unary answer's cut. Such an answer is counted then (here, and in a2a_bridge_requests_total: metrics-http.ts).
  let endError: Promise<number | undefined> | undefined;
  const exchange = async (): Promise<Response> => {
    const answer = await relay.forward(request, body, watch);
    status = answer.status;
    const relayed = await relayedAnswer(method, answer, request.signal);
    if (STREAMING_METHODS.has(method)) {
      if (!deps.metrics || !isStream(relayed)) return relayed;
      // Its error event, the agent's or the relay's own (a cut), is known only at its end: it is counted then, by that
      // error, not `ok` as its headers go out (here, and in a2a_bridge_requests_total: metrics-http.ts).
      const watched = watchedErrorEvents(relayed);
      endError = stream ? stream.endedWith(watched.ended) : watched.ended;
      c.set('relayedStreamError', endError);
      return watched.answer;
    }
    const failed = await relayedErrorFields(relayed);
    if (failed) {
      agentError = true;
      noteLog(c, failed);
    }
    // An answer over 64 KiB goes on as it comes: a cut mid-body is its error, known only at its end.
    endError = deps.metrics ? unary?.endedLater() : undefined;
    if (endError) c.set('relayedStreamError', endError);
    return relayed;
  };
  const { metrics } = deps;
  if (!metrics) return exchange();
  return timedUpstreamCall(metrics, method, c.get('timing'), exchange, () =>
    endError ? outcomeAtEnd(endError, status) : answerOutcome(status, agentError),
  );
}

/**
 * A relayed stream's outcome (or a large unary answer's), once it ended: made here, so that what waits for it does not
 * hold `c` (as endLogged).
 */
const outcomeAtEnd = (ended: Promise<number | undefined>, status: number): Promise<UpstreamOutcome> =>
  ended.then((errorCode) => answerOutcome(status, errorCode !== undefined));

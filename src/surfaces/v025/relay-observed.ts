import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { UpstreamOutcome } from '../../observability/metrics.js';
import { timedUpstreamCall } from '../../observability/metrics-port.js';
import { logRelayCut } from '../../observability/stream-end-log.js';
import { refusesCredentials } from '../../upstream/upstream-errors.js';
import type { RelayWatch } from '../../upstream/v025/passthrough.js';
import type { GatewayEnv, RequestLogFields } from '../shared/env.js';
import type { V025FacadeDeps, V025Relay } from './deps.js';
import { STREAMING_METHODS } from './errors.js';
import { relayedAnswer } from './relay-answer.js';

/**
 * How a relayed call went at the agent, counted as the upstream clients count theirs: its refusal of the gateway's
 * credentials (HTTP 401/403: `refused`), another status that is not 2xx (`error`, also when it holds the agent's own
 * JSON-RPC error, which goes on to the caller), else `ok`. An agent's JSON-RPC error under a 2xx status is relayed
 * unread, and counted `ok`.
 */
const answerOutcome = (status: number): UpstreamOutcome => (refusesCredentials(status) ? 'refused' : status >= 200 && status < 300 ? 'ok' : 'error');

/**
 * The `stream ended` line of a relayed stream the relay cuts (the agent quiet past `stream-idle-timeout-ms`), on the
 * request's logger and fields: made here, not where `c` is in scope, so that an open stream does not keep the Hono
 * context (docs/performance.md).
 */
function cutLogged(logger: Logger | undefined, fields: RequestLogFields | undefined, method: string): RelayWatch | undefined {
  if (!logger || !STREAMING_METHODS.has(method)) return undefined;
  const started = performance.now();
  return { cutQuiet: (error) => logRelayCut(logger, started, fields ?? {}, error) };
}

/**
 * One call relayed to a 0.2.5/0.3 agent and its answer as the facade sends it on (relay-answer.ts), observed as a
 * call through the core is: timed and counted as an upstream call (a2a_bridge_upstream_requests_total and
 * upstream_duration_seconds under its 0.2.5 method; its time in the request's record, for gateway_added_seconds), up to
 * the agent's answer judged (a stream: its headers); what the relay throws (the agent out of reach, an answer in no
 * protocol's shape) is the caller's error answer, which the call pipeline notes on the request line
 * (call-pipeline.ts runCall); a stream the relay cuts has its `stream ended` line.
 */
export function observedRelay(relay: V025Relay, method: string, body: string, c: Context<GatewayEnv>, deps: V025FacadeDeps): Promise<Response> {
  const request = c.req.raw;
  const watch = cutLogged(c.get('logger'), c.get('logFields'), method);
  let status = 0;
  const exchange = async (): Promise<Response> => {
    const answer = await relay.forward(request, body, watch);
    status = answer.status;
    return relayedAnswer(method, answer, request.signal);
  };
  const { metrics } = deps;
  return metrics ? timedUpstreamCall(metrics, method, c.get('timing'), exchange, () => answerOutcome(status)) : exchange();
}

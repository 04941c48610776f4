import { collectDefaultMetrics, Registry } from 'prom-client';
import { boundedReading } from './bounded-reading.js';
import { gatewayInstruments } from './gateway-instruments.js';
import { anyStateLabel, errorCodeLabel, methodLabel, surfaceLabel } from './metric-labels.js';

/**
 * The gateway's Prometheus metrics, on a registry of its own (several gateways can share a process,
 * as in tests). Every label takes values from a closed set: surfaces, method names, outcomes, A2A
 * error codes, states, kinds and the client names of the config; never an id, a URL or anything a
 * caller chose.
 */
export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;

/**
 * Why a turn ended in the state counted without the agent failing it: `shutdown`, the gateway's drain (a rollout)
 * cut the turn while the agent goes on with it; `caller_left`, its caller hung up on a blocking call and read
 * nothing; `timeout`, the gateway's bound on a blocking call (`upstream.request-timeout-ms`) passed while the agent
 * goes on with the turn, its user told so. Three values, so the label adds three series.
 */
export type TaskStateReason = 'shutdown' | 'caller_left' | 'timeout';

/**
 * How a call to the upstream agent went: `refused`, the agent refused the gateway's own credentials (HTTP 401/403,
 * gRPC UNAUTHENTICATED/PERMISSION_DENIED: `upstream.auth` wrong, which retrying never mends), told apart from
 * `error`, every other failure (the agent down, reset, timed out, answering an error).
 */
export type UpstreamOutcome = 'ok' | 'error' | 'refused';

/**
 * How long a scrape waits for a value read from elsewhere (the Redis queue's depth): Prometheus waits 10 s
 * by default and a Redis that froze answers nothing; a value read late is not one to report either.
 */
export const SCRAPE_READ_WITHIN_MS = 1_000;

export function createGatewayMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  // Unprefixed: prom-client's names already say `process_` and `nodejs_`, the names Node.js dashboards query.
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const instruments = gatewayInstruments(registry);

  function countRequest(surface: string, method: string, outcome: string, code: string, client: string): void {
    instruments.requests.add(`${surface} ${method} ${outcome} ${code} ${client}`, () => ({ surface, method, outcome, error_code: code, client }));
  }

  return {
    registry,
    /** `client`: the caller's client name, only ever one of the config's (auth made it). */
    request(surface: string | undefined, method: string | undefined, status: number, errorCode: number | undefined, client = ''): void {
      const failed = errorCode !== undefined || status >= 400;
      const code = errorCode !== undefined ? errorCodeLabel(errorCode) : status >= 400 ? `http_${status}` : '';
      countRequest(surfaceLabel(surface), methodLabel(method), failed ? 'error' : 'ok', code, client);
    },
    /** A gRPC call answered with `grpcCode` (0: OK); a failure without an A2A error is labelled `grpc_<code>`. */
    grpcRequest(method: string, grpcCode: number, errorCode: number | undefined, client = ''): void {
      const failed = grpcCode !== 0;
      const code = errorCode !== undefined ? errorCodeLabel(errorCode) : failed ? `grpc_${grpcCode}` : '';
      countRequest('grpc', methodLabel(method), failed ? 'error' : 'ok', code, client);
    },
    /**
     * A call whose caller hung up before its answer (an HTTP request whose connection closed, a gRPC call cancelled
     * or past its deadline), which ended it: no failure of the gateway's or the agent's, nor an answer anyone read.
     */
    callerLeft(surface: string | undefined, method: string | undefined, client = ''): void {
      countRequest(surfaceLabel(surface), methodLabel(method), 'caller_left', '', client);
    },
    /** A turn refused at its client's cap; `client` as for request(). */
    turnRefused(surface: string | undefined, client = ''): void {
      instruments.turnsRefused.inc({ surface: surfaceLabel(surface), client });
    },
    blockingCall(surface: string | undefined, method: string | undefined, seconds: number, upstreamSeconds: number): void {
      const surfaceValue = surfaceLabel(surface);
      const methodValue = methodLabel(method);
      instruments.duration.observe(`${surfaceValue} ${methodValue}`, () => ({ surface: surfaceValue, method: methodValue }), seconds);
      if (upstreamSeconds > 0) instruments.overhead.observe(surfaceValue, () => ({ surface: surfaceValue }), Math.max(0, seconds - upstreamSeconds));
    },
    /** A stream's response went out: counted open until the returned function is called. */
    streamOpened(surface: string | undefined): () => void {
      const label = { surface: surfaceLabel(surface) };
      instruments.openStreams.inc(label);
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        instruments.openStreams.dec(label);
      };
    },
    firstStreamEvent(surface: string | undefined, seconds: number): void {
      const surfaceValue = surfaceLabel(surface);
      instruments.firstEvent.observe(surfaceValue, () => ({ surface: surfaceValue }), seconds);
    },
    /** `events` more of one kind handed to callers' streams. */
    streamEvents(surface: string | undefined, kind: 'task' | 'message' | 'status-update' | 'artifact-update', events: number): void {
      const surfaceValue = surfaceLabel(surface);
      instruments.streamEvents.add(`${surfaceValue} ${kind}`, () => ({ surface: surfaceValue, kind }), events);
    },
    /**
     * A 1.0 state (`TASK_STATE_COMPLETED`) or a 0.2.5 one (`input-required`); anything else is `other`. `reason`:
     * the gateway's own, not the agent's (facade-events.ts); absent, the series has no `reason` label at all, so
     * the queries written before it was added read the same series.
     */
    taskState(surface: string | undefined, state: string, reason?: TaskStateReason): void {
      const surfaceValue = surfaceLabel(surface);
      const labels = (): Record<string, string> => ({ surface: surfaceValue, state: anyStateLabel(state), ...(reason ? { reason } : {}) });
      instruments.taskStates.add(`${surfaceValue} ${state} ${reason ?? ''}`, labels);
    },
    upstreamCall(method: string, outcome: UpstreamOutcome, seconds: number): void {
      const methodValue = methodLabel(method);
      instruments.upstreamCalls.add(`${methodValue} ${outcome}`, () => ({ method: methodValue, outcome }));
      instruments.upstreamDuration.observe(methodValue, () => ({ method: methodValue }), seconds);
    },
    cardRefresh(ok: boolean): void {
      instruments.cardRefresh.inc({ outcome: ok ? 'success' : 'failure' });
    },
    /** `reason` comes from the verifier's fixed set (unsigned, unknown-key, signature-mismatch, …). */
    cardVerification(valid: boolean, reason?: string): void {
      instruments.cardVerification.inc({
        outcome: valid ? 'verified' : 'not-verified',
        reason: valid ? '' : /^[a-z-]{1,40}$/.test(reason ?? '') ? reason : 'other',
      });
    },
    pushDelivery(outcome: string): void {
      instruments.pushDeliveries.inc({ outcome: ['delivered', 'retry', 'permanent', 'skipped'].includes(outcome) ? outcome : 'other' });
    },
    /** A scrape waits at most SCRAPE_READ_WITHIN_MS for `depth` (a Redis that froze would hold it): the sample is left out meanwhile. */
    watchQueue(queue: 'local-file' | 'redis-streams', depth: () => Promise<number>): void {
      instruments.queueDepths.set(queue, boundedReading(depth, SCRAPE_READ_WITHIN_MS));
    },
    /** The task writer's retries (core/task-writer.ts RegistryWriteWatch): one begins, one is over, landed or given up. */
    registryWrites: {
      retrying: (): void => instruments.registryWritesRetrying.inc(),
      over(landed: boolean): void {
        instruments.registryWritesRetrying.dec();
        if (!landed) instruments.registryWritesLost.inc();
      },
    },
    /** One sweep of the workspace pruner: what it removed and what it could not. */
    workspaceSweep(result: { removed: number; bytes: number; failed: number }): void {
      instruments.workspacesPruned.inc(result.removed);
      instruments.workspaceBytesPruned.inc(result.bytes);
      instruments.workspacePruneFailures.inc(result.failed);
    },
  };
}

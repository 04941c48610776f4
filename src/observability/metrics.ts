import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { V025_METHODS } from '../protocol/v025/enums.js';
import { isV1Method } from '../surfaces/shared/operations.js';
import { TASK_STATES, type TaskState } from '../model/index.js';
import { redisErrorSeries } from './redis-errors.js';
import { boundedReading } from './bounded-reading.js';
import { imageFetchCounts } from './image-fetches.js';
import { settingsRemovedCounts } from './settings-removed.js';
import { counterTally, histogramTally } from './tallies.js';

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
 * nothing. Two values, so the label adds two series.
 */
export type TaskStateReason = 'shutdown' | 'caller_left';

/**
 * How a call to the upstream agent went: `refused`, the agent refused the gateway's own credentials (HTTP 401/403,
 * gRPC UNAUTHENTICATED/PERMISSION_DENIED: `upstream.auth` wrong, which retrying never mends), told apart from
 * `error`, every other failure (the agent down, reset, timed out, answering an error).
 */
export type UpstreamOutcome = 'ok' | 'error' | 'refused';

const SURFACES = new Set(['jsonrpc', 'rest', 'grpc', 'v025', 'card', 'health']);
const V025 = new Set<string>(V025_METHODS);
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/**
 * How long a scrape waits for a value read from elsewhere (the Redis queue's depth): Prometheus waits 10 s
 * by default and a Redis that froze answers nothing; a value read late is not one to report either.
 */
export const SCRAPE_READ_WITHIN_MS = 1_000;
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** A surface label: one of the known surfaces, else `other`. */
export const surfaceLabel = (surface: string | undefined): string => (surface && SURFACES.has(surface) ? surface : 'other');
/** A method label: a 1.0 or 0.2.5 method name, else `other` (a caller's made-up method must not become a series). */
export const methodLabel = (method: string | undefined): string =>
  method && (isV1Method(method) || V025.has(method)) ? method : method ? 'other' : '';
/** An A2A/JSON-RPC error code label; anything outside the JSON-RPC range is `other`. */
export const errorCodeLabel = (code: number | undefined): string =>
  code === undefined ? '' : Number.isInteger(code) && code >= -32768 && code <= -32000 ? String(code) : 'other';
/** `TASK_STATE_WORKING` → `working`. */
export const stateLabel = (state: TaskState): string => state.replace(/^TASK_STATE_/, '').toLowerCase();
const STATE_LABELS: ReadonlySet<string> = new Set(TASK_STATES.map(stateLabel));
/** A 1.0 state's label, or a 0.2.5 state's (`input-required` → `input_required`, `unknown` → `unspecified`); else `other`. */
const anyStateLabel = (state: string): string => {
  const label = state === 'unknown' ? 'unspecified' : stateLabel(state as TaskState).replace(/-/g, '_');
  return STATE_LABELS.has(label) ? label : 'other';
};

/** A counter of process-wide counts that code deep in the facade reports (image-fetches.ts, settings-removed.ts), read at scrape time. */
function countsCounter(registry: Registry, name: string, help: string, label: string, counts: () => ReadonlyMap<string, number>): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, count] of counts()) this.inc({ [label]: value }, count);
    },
  });
}

export function createGatewayMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  // Unprefixed: prom-client's names already say `process_` and `nodejs_`, the names Node.js dashboards query.
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = counterTally(registry, {
    name: 'a2a_bridge_requests_total',
    help: 'Requests answered, by surface, method, outcome (ok, error, or caller_left: the caller hung up before its answer and that ended the call; an HTTP stream is counted when it opens), A2A error code (empty when none; http_<status> or grpc_<code> for an error without one) and client name (empty when unnamed)',
    labelNames: ['surface', 'method', 'outcome', 'error_code', 'client'],
  });
  const turnsRefused = new Counter({
    name: 'a2a_bridge_turns_refused_total',
    help: 'Turns refused because their client had its cap of turns in flight (limits.*), by surface and client name (empty when unnamed)',
    labelNames: ['surface', 'client'] as const,
    registers,
  });
  const duration = histogramTally(registry, {
    name: 'a2a_bridge_request_duration_seconds',
    help: 'Whole duration of blocking calls, by surface and method (streams: see time to first event)',
    labelNames: ['surface', 'method'],
    buckets: LATENCY_BUCKETS,
  });
  const overhead = histogramTally(registry, {
    name: 'a2a_bridge_gateway_added_seconds',
    help: 'Time a blocking call spent in the gateway itself: its duration less the time waiting on the upstream',
    labelNames: ['surface'],
    buckets: OVERHEAD_BUCKETS,
  });
  const firstEvent = histogramTally(registry, {
    name: 'a2a_bridge_time_to_first_event_seconds',
    help: 'From request to the first event of a stream going out, by surface',
    labelNames: ['surface'],
    buckets: LATENCY_BUCKETS,
  });
  const openStreams = new Gauge({
    name: 'a2a_bridge_open_streams',
    help: 'SSE streams open now, by surface',
    labelNames: ['surface'] as const,
    registers,
  });
  const streamEvents = counterTally(registry, {
    name: 'a2a_bridge_stream_events_total',
    help: "Events written to callers' streams, by surface and kind (task, message, status-update, artifact-update); on the 0.2.5 facade (v025) its own 0.2.5 events, as its caller receives them",
    labelNames: ['surface', 'kind'],
  });
  const taskStates = counterTally(registry, {
    name: 'a2a_bridge_task_states_total',
    help: 'Task state changes callers saw, by surface and state reached: each change in a stream\'s events, and the state of a blocking answer\'s task; on the 0.2.5 facade (v025) the states it showed (completed for a turn iac-code ends input-required), reason="shutdown" on the failed state of a turn the gateway\'s drain cut while the agent goes on with it, reason="caller_left" on that of a message/send whose caller hung up and read nothing',
    labelNames: ['surface', 'state', 'reason'],
  });
  const upstreamCalls = counterTally(registry, {
    name: 'a2a_bridge_upstream_requests_total',
    help: "Calls to the upstream agent, by method and outcome: ok, refused (the agent refused the gateway's credentials: HTTP 401/403, upstream.auth), error (any other failure)",
    labelNames: ['method', 'outcome'],
  });
  const upstreamDuration = histogramTally(registry, {
    name: 'a2a_bridge_upstream_duration_seconds',
    help: 'Duration of blocking upstream calls (streams: to their first event), by method',
    labelNames: ['method'],
    buckets: LATENCY_BUCKETS,
  });
  const cardRefresh = new Counter({
    name: 'a2a_bridge_card_refresh_total',
    help: 'Upstream agent card reads, by outcome (success or failure)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const cardVerification = new Counter({
    name: 'a2a_bridge_card_verification_total',
    help: "Checks of the upstream card's signature (upstream.card-verification), by outcome and the reason a card did not verify",
    labelNames: ['outcome', 'reason'] as const,
    registers,
  });
  const pushDeliveries = new Counter({
    name: 'a2a_bridge_push_deliveries_total',
    help: 'Push notification delivery attempts, by outcome (delivered, retry, permanent, skipped)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const queueDepths = new Map<string, () => Promise<number | undefined>>();
  new Gauge({
    name: 'a2a_bridge_push_queue_depth',
    help: 'Push jobs waiting or in flight, by queue (local-file or redis-streams)',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      this.reset();
      const depths = await Promise.all([...queueDepths].map(async ([queue, depth]) => [queue, await depth()] as const));
      for (const [queue, value] of depths) if (value !== undefined) this.set({ queue }, value);
    },
  });
  const workspacesPruned = new Counter({
    name: 'a2a_bridge_workspaces_pruned_total',
    help: 'Idle conversation folders removed below upstream.workspace-root (upstream.workspace-prune)',
    registers,
  });
  const workspaceBytesPruned = new Counter({
    name: 'a2a_bridge_workspace_pruned_bytes_total',
    help: 'Bytes of the files in the conversation folders removed',
    registers,
  });
  const workspacePruneFailures = new Counter({
    name: 'a2a_bridge_workspace_prune_failures_total',
    help: 'Conversation folders a sweep could not read or remove (permissions, or a tree beyond the walk bounds): they stay on disk',
    registers,
  });
  countsCounter(
    registry,
    'a2a_bridge_bailian_image_fetches_total',
    'URL images the facade fetched for a Bailian user, by outcome (fetched, refused, busy)',
    'outcome',
    imageFetchCounts,
  );
  countsCounter(
    registry,
    'a2a_bridge_caller_settings_removed_total',
    'Turns whose metadata.iac_code had keys upstream.caller-settings does not allow, taken out before iac-code read them, by surface',
    'surface',
    settingsRemovedCounts,
  );
  new Counter({
    name: 'a2a_bridge_redis_errors_total',
    help: 'Redis errors, by component and kind: connection (the connection failed), timeout (a command got no answer in time: a Redis that froze), unavailable (Redis refused a command for now: LOADING, BUSY, …)',
    labelNames: ['component', 'kind'] as const,
    registers,
    collect() {
      this.reset();
      for (const { component, kind, count } of redisErrorSeries()) this.inc({ component, kind }, count);
    },
  });

  function countRequest(surface: string, method: string, outcome: string, code: string, client: string): void {
    requests.add(`${surface} ${method} ${outcome} ${code} ${client}`, () => ({ surface, method, outcome, error_code: code, client }));
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
      turnsRefused.inc({ surface: surfaceLabel(surface), client });
    },
    blockingCall(surface: string | undefined, method: string | undefined, seconds: number, upstreamSeconds: number): void {
      const surfaceValue = surfaceLabel(surface);
      const methodValue = methodLabel(method);
      duration.observe(`${surfaceValue} ${methodValue}`, () => ({ surface: surfaceValue, method: methodValue }), seconds);
      if (upstreamSeconds > 0) overhead.observe(surfaceValue, () => ({ surface: surfaceValue }), Math.max(0, seconds - upstreamSeconds));
    },
    /** A stream's response went out: counted open until the returned function is called. */
    streamOpened(surface: string | undefined): () => void {
      const label = { surface: surfaceLabel(surface) };
      openStreams.inc(label);
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        openStreams.dec(label);
      };
    },
    firstStreamEvent(surface: string | undefined, seconds: number): void {
      const surfaceValue = surfaceLabel(surface);
      firstEvent.observe(surfaceValue, () => ({ surface: surfaceValue }), seconds);
    },
    /** `events` more of one kind handed to callers' streams. */
    streamEvents(surface: string | undefined, kind: 'task' | 'message' | 'status-update' | 'artifact-update', events: number): void {
      const surfaceValue = surfaceLabel(surface);
      streamEvents.add(`${surfaceValue} ${kind}`, () => ({ surface: surfaceValue, kind }), events);
    },
    /**
     * A 1.0 state (`TASK_STATE_COMPLETED`) or a 0.2.5 one (`input-required`); anything else is `other`. `reason`:
     * the gateway's own, not the agent's (facade-events.ts); absent, the series has no `reason` label at all, so
     * the queries written before it was added read the same series.
     */
    taskState(surface: string | undefined, state: string, reason?: TaskStateReason): void {
      const surfaceValue = surfaceLabel(surface);
      const labels = (): Record<string, string> => ({ surface: surfaceValue, state: anyStateLabel(state), ...(reason ? { reason } : {}) });
      taskStates.add(`${surfaceValue} ${state} ${reason ?? ''}`, labels);
    },
    upstreamCall(method: string, outcome: UpstreamOutcome, seconds: number): void {
      const methodValue = methodLabel(method);
      upstreamCalls.add(`${methodValue} ${outcome}`, () => ({ method: methodValue, outcome }));
      upstreamDuration.observe(methodValue, () => ({ method: methodValue }), seconds);
    },
    cardRefresh(ok: boolean): void {
      cardRefresh.inc({ outcome: ok ? 'success' : 'failure' });
    },
    /** `reason` comes from the verifier's fixed set (unsigned, unknown-key, signature-mismatch, …). */
    cardVerification(valid: boolean, reason?: string): void {
      cardVerification.inc({
        outcome: valid ? 'verified' : 'not-verified',
        reason: valid ? '' : /^[a-z-]{1,40}$/.test(reason ?? '') ? reason : 'other',
      });
    },
    pushDelivery(outcome: string): void {
      pushDeliveries.inc({ outcome: ['delivered', 'retry', 'permanent', 'skipped'].includes(outcome) ? outcome : 'other' });
    },
    /** A scrape waits at most SCRAPE_READ_WITHIN_MS for `depth` (a Redis that froze would hold it): the sample is left out meanwhile. */
    watchQueue(queue: 'local-file' | 'redis-streams', depth: () => Promise<number>): void {
      queueDepths.set(queue, boundedReading(depth, SCRAPE_READ_WITHIN_MS));
    },
    /** One sweep of the workspace pruner: what it removed and what it could not. */
    workspaceSweep(result: { removed: number; bytes: number; failed: number }): void {
      workspacesPruned.inc(result.removed);
      workspaceBytesPruned.inc(result.bytes);
      workspacePruneFailures.inc(result.failed);
    },
  };
}

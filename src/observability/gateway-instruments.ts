import { Counter, Gauge, type Registry } from 'prom-client';
import { redisErrorSeries } from './redis-errors.js';
import { imageFetchCounts } from './image-fetches.js';
import { settingsRemovedCounts } from './settings-removed.js';
import { counterTally, histogramTally } from './tallies.js';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

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

/**
 * The gateway's own metrics as an operator reads them (deploy/README.md's table has a row for each): name,
 * help, labels and buckets, registered on `registry`. metrics.ts records into them.
 */
export function gatewayInstruments(registry: Registry) {
  const registers = [registry];

  const requests = counterTally(registry, {
    name: 'a2a_bridge_requests_total',
    help: 'Requests answered, by surface, method, outcome (ok, error, or caller_left: the caller hung up before its answer and that ended the call; an HTTP stream is counted when it opens, one relayed to a 0.2.5 agent, or a relayed answer over 64 KiB, at its end by the error it ended with), A2A error code (empty when none; http_<status> or grpc_<code> for an error without one) and client name (empty when unnamed)',
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
  const registryWritesRetrying = new Gauge({
    name: 'a2a_bridge_task_registry_writes_retrying',
    help: 'Task registry writes that failed and are being tried again now (store: redis, while Redis is out of reach)',
    registers,
  });
  const registryWritesLost = new Counter({
    name: 'a2a_bridge_task_registry_writes_lost_total',
    help: "Task registry writes given up after their retries (or at the gateway's stop): a task's record stayed behind what its caller was streamed",
    registers,
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

  return {
    requests,
    turnsRefused,
    duration,
    overhead,
    firstEvent,
    openStreams,
    streamEvents,
    taskStates,
    upstreamCalls,
    upstreamDuration,
    cardRefresh,
    cardVerification,
    pushDeliveries,
    queueDepths,
    registryWritesRetrying,
    registryWritesLost,
    workspacesPruned,
    workspaceBytesPruned,
    workspacePruneFailures,
  };
}

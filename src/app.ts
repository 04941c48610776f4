import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { TracerProvider } from '@opentelemetry/api';
import type { GatewayConfig } from './config/schema.js';
import type { CallContext } from './core/agent-port.js';
import { createCardRefresher } from './core/card-refresher.js';
import { createContextLanesFor } from './core/context-lanes-factory.js';
import { createGateway } from './core/gateway.js';
import { boundingHistory } from './core/history-length.js';
import { createTaskAliases } from './core/task-aliases/index.js';
import { createTaskRegistry } from './core/task-registry/index.js';
import type { TurnLimits } from './core/turn-limits.js';
import { createTurnSlotsFor } from './core/turn-slots-factory.js';
import { startDemoAgent } from './demo-agent/index.js';
import { notePipelineMode } from './upstream/iac-code/run-mode.js';
import { createGatewayApp } from './gateway-app.js';
import type { DrainableServer } from './http/drain.js';
import { listenHttp } from './http/listen.js';
import { withFields, A2AError, GATEWAY_FAILURES } from './model/index.js';
import { createObservability } from './observability/index.js';
import { createGatewayMetrics, type GatewayMetrics } from './observability/metrics.js';
import { createTracing } from './observability/tracing.js';
import { assertPortsAvailable } from './start/port-check.js';
import { holdPersistenceDir } from './start/persistence-lock.js';
import { assertRedisKeysFitCluster } from './redis/cluster-check.js';
import { assertRedisTakesCredentials } from './redis/credentials-check.js';
import { createGatewayPush } from './gateway-push.js';
import { artifactContentFor, withArtifactContent } from './artifact-content.js';
import { createCardSigner, JWKS_PATH } from './signing/card-signer.js';
import { configWarnings } from './start/warnings.js';
import { demoUpstreamWarning } from './start/demo-upstream-warning.js';
import { createKeySource } from './signing/upstream-keys.js';
import { onlyWhenVerified } from './signing/trusted-upstream.js';
import { verifiedCards } from './signing/verified-card-fetcher.js';
import type { VerificationResult } from './signing/verify-card.js';
import { agentRoutesUpstream, grpcSurfaceOptions, unknownTasksFor } from './surface-options.js';
import { prepareCallerAuth } from './surfaces/shared/auth.js';
import { outlivingCallsEnded } from './surfaces/shared/outliving-calls.js';
import { withDirectSse } from './surfaces/shared/sse-direct.js';
import { settlesWithin } from './settles-within.js';
import { loadStartFiles } from './start/checks.js';
import { connectUpstream } from './upstream/connect.js';
import { credentialSecrets } from './upstream/http.js';
import { IAC_CODE_SECRET_KEYS } from './upstream/iac-code/secrets.js';
import { startWorkspacePruning } from './upstream/iac-code/start-pruning.js';
import { namingTaskContexts } from './upstream/iac-code/task-context.js';
import { answeringPermissionsByStream } from './upstream/iac-code/permission-answer-stream.js';
import { givingWorkspaces } from './upstream/iac-code/workspaces.js';
import { onlyAllowedSettings } from './upstream/iac-code/caller-settings.js';
import { warnOpenCallerSettings } from './upstream/iac-code/open-caller-settings.js';
import { isIacCodeCard, tellingLanguage } from './upstream/iac-code/preferred-language.js';
import { createConversationLanguages } from './surfaces/v025/notes/conversation-languages.js';
import { relaysAsIs } from './surfaces/v025/relay/passthrough.js';
import { passThroughWhenV025 } from './upstream/v025/passthrough-when-v025.js';

/**
 * The cap on each client's turns in flight (`limits`), its refusals counted; undefined when no client
 * has one. Its slots are closed (their Redis connection) after the drain has ended every turn.
 */
function turnLimitsFor(
  config: GatewayConfig,
  logger: Logger,
  metrics: GatewayMetrics | undefined,
  cleanups: Array<() => Promise<void>>,
): TurnLimits | undefined {
  const slots = createTurnSlotsFor(config, logger);
  if (!slots) return undefined;
  cleanups.push(() => slots.close());
  return metrics ? { slots, refused: (ctx) => metrics.turnRefused(ctx.surface, ctx.client) } : { slots };
}

export interface RunningGateway {
  url: string;
  /** `host:port` of the gRPC binding when `grpc.port` is set. */
  grpcAddress?: string;
  /** Where the metrics are scraped when `metrics.port` is set (its own port: 0 takes a free one). */
  metricsUrl?: string;
  close(): Promise<void>;
}

/** What a stream or call still open at the end of the drain receives, in its caller's protocol. */
export const SHUTTING_DOWN_MESSAGE = GATEWAY_FAILURES.shuttingDown;
/** After the drain time, how long calls whose caller left may take to end once their upstream call is aborted. */
const OUTLIVING_GRACE_MS = 1_000;

export interface StartOptions {
  /** Spans go here instead of the configured exporter (tests: an in-memory exporter). */
  tracerProvider?: TracerProvider;
  /** How often the TLS files are checked for a renewal (default 5 s). */
  tlsReloadMs?: number;
}

/**
 * Starts everything the config asks for and serves it. `close()` refuses new connections at once,
 * gives open requests and streams `drain-timeout-ms` to finish, then ends the rest with
 * SHUTTING_DOWN_MESSAGE (1.0: an `event: error` frame or a JSON-RPC/HTTP error; 0.2.5: a failed,
 * final status-update), aborting their upstream calls, and finally releases everything else.
 */
export async function startGateway(config: GatewayConfig, logger: Logger, options: StartOptions = {}): Promise<RunningGateway> {
  const cleanups: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => logger.warn({ err }, 'cleanup failed'));
  };
  try {
    // Files and keys are checked before anything starts, as check-config checks them: a bad one is a configuration error.
    const { profile, signingKeys, upstreamTls, tls } = await loadStartFiles(config);
    const signer = createCardSigner(signingKeys, {
      ...(config['public-url'] ? { jwksUrl: `${config['public-url'].replace(/\/+$/, '')}${JWKS_PATH}` } : {}),
    });
    const verification = config.upstream['card-verification'];
    const keyServerCa = upstreamTls.ca;
    const upstreamKeys = verification ? createKeySource(verification, keyServerCa ? { fetch: { ca: keyServerCa } } : {}) : undefined;
    await prepareCallerAuth(config.auth, logger);
    for (const warning of configWarnings(config)) logger.warn(warning);
    await assertPortsAvailable(config);
    await assertRedisTakesCredentials(config, logger);
    await assertRedisKeysFitCluster(config);
    // Before anything reads or writes its files, and released last (cleanups run in reverse): one gateway per persistence-dir.
    const releasePersistenceDir = await holdPersistenceDir(config, logger);
    if (releasePersistenceDir) cleanups.push(releasePersistenceDir);
    let upstreamUrl = config.upstream.url;
    if (!upstreamUrl) {
      // The demo stores its `template:` files as iac-code stores artifacts, in a folder the gateway reads.
      const artifactDir = config.upstream['artifact-dir'] ?? join(config['persistence-dir'], 'demo-artifacts');
      config = withFields(config, { upstream: withFields(config.upstream, { 'artifact-dir': artifactDir }) });
      const demo = await startDemoAgent({ artifactDir });
      cleanups.push(demo.close);
      upstreamUrl = demo.url;
      // A deployed-looking gateway on the demo is most likely a lost setting: said as a warning that names it.
      const demoWarning = demoUpstreamWarning(config);
      if (demoWarning) logger.warn({ upstream: upstreamUrl }, demoWarning);
      else logger.info({ upstream: upstreamUrl }, 'no upstream configured: serving the embedded demo agent');
    }
    const tracing = await createTracing(config.tracing, logger, options.tracerProvider);
    cleanups.push(() => tracing.shutdown());
    const observability = createObservability(config, { tracing, ...(config.metrics.enabled ? { metrics: createGatewayMetrics() } : {}) });
    const connected = await connectUpstream(upstreamUrl, config.upstream, logger);
    const upstream = observability.upstream(connected.upstream);
    cleanups.push(() => upstream.close());
    const passThrough = profile && relaysAsIs(profile, config.bailian) ? passThroughWhenV025(connected, upstreamUrl, config.upstream) : undefined;
    cleanups.push(async () => passThrough?.close());
    // On the agent's one pool, which upstream.close() closes: upstream.connections caps all the gateway's calls to it together.
    const agentRoutes = agentRoutesUpstream(upstreamUrl, connected.dispatcher, config);

    const counted = (result: VerificationResult) => observability.metrics?.cardVerification(result.valid, result.valid ? undefined : result.reason);
    const verifying = verification && upstreamKeys ? verifiedCards(upstream, verification, upstreamKeys, logger, counted) : undefined;
    const cards = createCardRefresher(observability.cards(verifying ?? upstream), { intervalMs: config.upstream['card-refresh-ms'], logger });
    await cards.start();
    cleanups.push(async () => cards.stop());
    notePipelineMode(cards, logger);
    warnOpenCallerSettings(cards, config.upstream, logger);

    const registry = createTaskRegistry(config, logger);
    cleanups.push(() => registry.close());
    const taskAliases = createTaskAliases(config, logger);
    cleanups.push(() => taskAliases.close());
    const languages = config.bailian.enabled ? createConversationLanguages(config, logger) : undefined;
    if (languages) cleanups.push(() => languages.close());
    const lanes = createContextLanesFor(config, logger);
    cleanups.push(() => lanes.close());

    const trusted = verifying && verification?.required ? onlyWhenVerified(upstream, verifying.verified) : upstream;
    const workspaceRoot = config.upstream['workspace-root'];
    const contextOf = async (taskId: string, ctx: CallContext) => (await registry.get(taskId, ctx.principal))?.contextId;
    const activity = startWorkspacePruning(config, logger, observability.metrics, cleanups);
    // iac-code is known by its card's extensions, which may only be read once it is up.
    const isIacCode = () => isIacCodeCard(cards.current()?.card);
    // A follow-up naming only its task gets the task's context, which iac-code needs (task-context.ts); the workspaces do it themselves.
    const placed = workspaceRoot
      ? givingWorkspaces(trusted, { root: workspaceRoot, contextOf, ...(activity ? { activity } : {}) })
      : namingTaskContexts(trusted, contextOf, isIacCode);
    // A permission answer sent blocking goes as a stream: iac-code never answers it otherwise (permission-answer-stream.ts).
    const answers = answeringPermissionsByStream(placed, { isIacCode, requestTimeoutMs: config.upstream['request-timeout-ms'] });
    const told = tellingLanguage(answers, isIacCode);
    const callerSettings = config.upstream['caller-settings'];
    // Outside the workspaces and the language: a folder and a language the gateway names are its own, whatever callers may set.
    const agent = callerSettings ? onlyAllowedSettings(told, callerSettings, { logger }) : told;
    const turnLimits = turnLimitsFor(config, logger, observability.metrics, cleanups);
    const gateway = createGateway(agent, {
      registry,
      lanes,
      upstreamName: upstreamUrl,
      secretKeys: IAC_CODE_SECRET_KEYS,
      secretValues: credentialSecrets(config.upstream.auth),
      logger,
      unknownTasks: unknownTasksFor(config),
      lostAfterMs: config.tasks['lost-after-ms'],
      ...(turnLimits ? { turnLimits } : {}),
      ...(observability.metrics ? { registryWrites: observability.metrics.registryWrites } : {}),
    });
    // A 1.0 webhook is pushed the files' bytes exactly when 1.0 callers are shown them (upstream.inline-artifacts).
    const artifacts = artifactContentFor(config, logger);
    const pushDeps = { registry, logger, profile, metrics: observability.metrics, taskAliases, artifacts };
    const { push, takeV025Renderer } = await createGatewayPush(config, pushDeps);
    // A caller's historyLength cuts only its answer: the registry, subscribers and push notifications keep the whole history.
    const port = observability.port(withArtifactContent(boundingHistory(push.decorate(gateway)), artifacts));
    cleanups.push(() => push.stop());
    const shutdown = new AbortController();
    // Every in-flight call listens for shutdown (and detaches when done): many listeners are the design.
    setMaxListeners(0, shutdown.signal);
    let httpUrl = '';
    const drainMs = config['drain-timeout-ms'];
    const interrupt = (): void => {
      if (shutdown.signal.aborted) return;
      logger.warn({ drainMs }, 'drain time is over: ending the open requests and streams');
      shutdown.abort(A2AError.shuttingDown());
    };
    /** Calls whose caller left get the same drain time as open requests (outliving-calls.ts). */
    const drainOutliving = async (): Promise<void> => {
      const ended = outlivingCallsEnded(shutdown.signal);
      if (await settlesWithin(ended, drainMs)) return;
      interrupt();
      await settlesWithin(ended, OUTLIVING_GRACE_MS);
    };
    const metricsListener = await observability.listen(config.host);
    if (metricsListener) {
      cleanups.push(metricsListener.close);
      logger.info({ url: metricsListener.url }, 'metrics listening');
    }
    // Loaded only when on: grpc-js is not needed by a gateway without the binding.
    const grpc =
      config.grpc.port === undefined
        ? undefined
        : await (
            await import('./surfaces/grpc/server.js')
          ).startGrpcSurface(
            {
              port,
              options: grpcSurfaceOptions(config),
              logger,
              shutdown: shutdown.signal,
              baseUrl: () => config['public-url']?.replace(/\/+$/, '') ?? httpUrl,
              cards,
              ...(signer ? { signer } : {}),
              ...(observability.metrics ? { metrics: observability.metrics } : {}),
              ...(tracing.recording ? { tracer: tracing.tracer } : {}),
            },
            options.tlsReloadMs,
          );
    if (grpc) logger.info({ grpcPort: grpc.port }, 'gRPC binding listening');
    let http: DrainableServer | undefined;
    // ONE drain for both bindings, registered once the first is up (a failed start still closes it): they
    // drain at once, as one after the other would double the shutdown time.
    cleanups.push(async () => {
      await Promise.all([http?.drain({ drainMs, interrupt }), grpc?.drain({ drainMs, interrupt }), drainOutliving()]);
    });
    const app = createGatewayApp({
      // With grpc.port 0 the cards must advertise the port it got.
      config: grpc ? withFields(config, { grpc: withFields(config.grpc, { port: grpc.port }) }) : config,
      port,
      cards,
      registry,
      taskAliases,
      ...(languages ? { languages } : {}),
      logger,
      shutdown: shutdown.signal,
      passThrough,
      ...(signer ? { signer } : {}),
      agentRoutes,
      observability,
      ...(turnLimits ? { turnLimits } : {}),
      turnLetGo: gateway.turnLetGo,
      ...(profile ? { profile } : {}),
      takeV025Renderer,
    });
    // Once the facade handed push its 0.2.5 bodies (gateway-push.ts), and before anything is served.
    push.start();
    await registry.firstConnectionTried?.();
    const listening = await listenHttp(withDirectSse(app.fetch), config, logger, tls, options.tlsReloadMs);
    http = listening;
    cleanups.push(async () => listening.stopTlsReload());
    httpUrl = listening.url;
    return {
      url: httpUrl,
      ...(grpc ? { grpcAddress: `${listening.host}:${grpc.port}` } : {}),
      ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

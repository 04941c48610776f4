import { withDirectSse } from './surfaces/shared/sse-direct.js';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/schema.js';
import type { AgentPort } from './core/agent-port.js';
import type { CardSource } from './core/card-source.js';
import { createCardRefresher } from './core/card-refresher.js';
import { createContextLanesFor } from './core/context-lanes-factory.js';
import { createGateway } from './core/gateway.js';
import { createTaskAliases, type TaskAliases } from './core/task-aliases/index.js';
import { createTaskRegistry } from './core/task-registry/index.js';
import type { TaskRegistry } from './core/task-registry/types.js';
import { startDemoAgent } from './demo-agent/index.js';
import { capConnectionsPerPeer, capRequestsPerForwardedClient, serverOptions } from './client-limits.js';
import { drainable } from './http-drain.js';
import { loadMappingProfile, type MappingProfile } from './mappings/index.js';
import { A2AError } from './model/index.js';
import { requestLogger } from './log.js';
import { createPushService } from './push/service.js';
import { mountHealth } from './surfaces/health.js';
import { admitsCaller, authEnabled, requireCredentials } from './surfaces/shared/auth.js';
import type { GatewayEnv } from './surfaces/shared/env.js';
import { guardedDialect } from './surfaces/shared/guarded-dialect.js';
import { jsonRpcEndpoint } from './surfaces/shared/jsonrpc-endpoint.js';
import { pathGuard } from './surfaces/shared/path-guard.js';
import type { JsonRpcDialect } from './surfaces/shared/jsonrpc.js';
import { createV1Dialect, mountV1Surface, type AgentRoutesUpstream } from './surfaces/v1/index.js';
import { mountV025Facade, type FacadePassThrough } from './surfaces/v025/index.js';
import { inlineArtifacts } from './core/inline-artifacts.js';
import { createArtifactReader } from './upstream/iac-code/artifacts.js';
import { createCardSigner, JWKS_PATH, type CardSigner } from './signing/card-signer.js';
import { loadKeyRing } from './signing/keys.js';
import { createKeySource } from './signing/upstream-keys.js';
import { onlyWhenVerified } from './signing/trusted-upstream.js';
import { verifiedCards } from './signing/verified-card-fetcher.js';
import type { VerificationResult } from './signing/verify-card.js';
import { mountJwks } from './surfaces/jwks.js';
import { connectUpstream } from './upstream/connect.js';
import { createUpstreamPool } from './upstream/http.js';
import { passThroughWhenV025 } from './upstream/passthrough-when-v025.js';
import { assertPortFree, listenError } from './port-check.js';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { loadTlsFiles, reloadTlsOnChange, tlsEnabled } from './tls.js';
import type { TracerProvider } from '@opentelemetry/api';
import { createObservability, type Observability } from './observability/index.js';
import { createGatewayMetrics } from './observability/metrics.js';
import { createTracing } from './observability/tracing.js';

export interface GatewayAppDeps {
  config: GatewayConfig;
  port: AgentPort;
  cards: CardSource;
  registry: TaskRegistry;
  logger: Logger;
  /** The 0.2.5 facade's mapping profile; loaded from the config when absent. */
  profile?: MappingProfile;
  /** Aborted, with the error to report, when the drain time is over: open calls and streams end with it. */
  shutdown?: AbortSignal;
  /** Relays the facade's calls to a 0.2.5/0.3 upstream as they are, instead of translating them. */
  passThrough?: FacadePassThrough;
  /** Task ids the facade's callers chose themselves; default: kept in this process. */
  taskAliases?: TaskAliases;
  /** Signs the 1.0 cards and publishes the public keys (config `signing.keys`). */
  signer?: CardSigner;
  /** Where the agent's own routes (iac-code's readiness and pipeline state) are forwarded to. */
  agentRoutes?: AgentRoutesUpstream;
  /** Metrics (and their route) and tracing; absent: none. */
  observability?: Observability;
}

/** The facade's profile with the operator's overrides: a bad file or override throws here, at start. */
export function loadFacadeProfile(config: GatewayConfig): MappingProfile {
  return loadMappingProfile(config.bailian.profile, config.bailian.mappings);
}

/** The whole HTTP surface: health, the 0.2.5 facade, the 1.0 surface and the JSON-RPC endpoint. */
export function createGatewayApp(deps: GatewayAppDeps): Hono<GatewayEnv> {
  const { config, port, cards, registry, logger, shutdown, signer } = deps;
  const app = new Hono<GatewayEnv>();
  app.use('*', requestLogger(logger));
  app.use('*', pathGuard());
  const perClient = config.server['max-connections-per-client'];
  // Without a trusted proxy the peer is the client, and startGateway caps its connections instead.
  if (config['trust-proxy'] && perClient > 0) app.use('*', capRequestsPerForwardedClient(perClient));
  deps.observability?.mount(app);
  mountHealth(app, cards);
  // Open like the health routes: a client checks the card's signature before it has credentials.
  if (signer) mountJwks(app, signer);

  const v1Auth = requireCredentials(config.auth);
  const v1 = new Hono<GatewayEnv>();
  v1.use('*', v1Auth);
  mountV1Surface(v1, { port, cards, config, shutdown, signer, ...(deps.agentRoutes ? { agentRoutes: deps.agentRoutes } : {}) });

  // Before the 1.0 surface: its catch-all auth middleware must not guard the facade's routes.
  const facade = config.bailian.enabled
    ? mountV025Facade(app, {
        port,
        cards,
        config,
        registry,
        shutdown,
        profile: deps.profile ?? loadFacadeProfile(config),
        passThrough: deps.passThrough,
        ...(deps.taskAliases ? { taskAliases: deps.taskAliases } : {}),
      })
    : undefined;

  const dialects: JsonRpcDialect[] = [
    guardedDialect(createV1Dialect({ port, cards, config, shutdown, signer }), v1Auth, (headers) => admitsCaller(headers, config.auth)),
  ];
  if (facade) dialects.push(facade);
  app.post('/', jsonRpcEndpoint(dialects, { maxBodyBytes: config['max-body-bytes'] }));
  app.route('/', v1);

  app.notFound((c) => c.json({ error: 'Not Found' }, 404));
  app.onError((error, c) => {
    c.var.logger?.error({ err: error }, 'unhandled error');
    return c.json({ error: 'Internal Server Error' }, 500);
  });
  return app;
}

/**
 * With `upstream.artifact-dir`, the content of iac-code's artifacts is read from the shared folder
 * for the facade (Bailian can show nothing else of them) and, with `upstream.inline-artifacts`, for 1.0 callers.
 */
function withArtifactContent<P extends AgentPort>(port: P, config: GatewayConfig, logger: Logger): P {
  const dir = config.upstream['artifact-dir'];
  if (!dir) return port;
  const reader = createArtifactReader({ dir, maxBytes: config.bailian['inline-max-bytes'], logger });
  return inlineArtifacts(port, reader, (ctx) => ctx.surface === 'v025' || config.upstream['inline-artifacts']);
}

export interface RunningGateway {
  url: string;
  /** `host:port` of the gRPC binding when `grpc.port` is set. */
  grpcAddress?: string;
  close(): Promise<void>;
}

/** What a stream or call still open at the end of the drain receives, in its caller's protocol. */
export const SHUTTING_DOWN_MESSAGE = 'The gateway is shutting down';

/**
 * Starts everything the config asks for and serves it. `close()` refuses new connections at once,
 * gives open requests and streams `drain-timeout-ms` to finish, then ends the rest with
 * SHUTTING_DOWN_MESSAGE (1.0: an `event: error` frame or a JSON-RPC/HTTP error; 0.2.5: a failed,
 * final status-update), aborting their upstream calls, and finally releases everything else.
 */
export interface StartOptions {
  /** Spans go here instead of the configured exporter (tests: an in-memory exporter). */
  tracerProvider?: TracerProvider;
  /** How often the TLS files are checked for a renewal (default 5 s). */
  tlsReloadMs?: number;
}

export async function startGateway(config: GatewayConfig, logger: Logger, options: StartOptions = {}): Promise<RunningGateway> {
  const cleanups: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => logger.warn({ err }, 'cleanup failed'));
  };
  try {
    const profile = config.bailian.enabled ? loadFacadeProfile(config) : undefined;
    // Keys are checked before anything starts: a bad one is a configuration error.
    const signer = createCardSigner(await loadKeyRing(config.signing.keys), {
      ...(config['public-url'] ? { jwksUrl: `${config['public-url'].replace(/\/+$/, '')}${JWKS_PATH}` } : {}),
    });
    const verification = config.upstream['card-verification'];
    const upstreamKeys = verification ? createKeySource(verification) : undefined;
    if (profile && authEnabled(config.auth) && !config.bailian['api-key']) {
      logger.warn('gateway auth is set but bailian.api-key is not: the 0.2.5 facade accepts calls without a key');
    }
    await assertPortFree(config.host, config.port);
    if (config.metrics.enabled && config.metrics.port !== undefined) await assertPortFree(config.host, config.metrics.port, 'metrics.port');
    if (config.grpc.port !== undefined) await assertPortFree(config.grpc.host ?? config.host, config.grpc.port, 'grpc.port');
    const tls = tlsEnabled(config.tls) ? await loadTlsFiles(config.tls) : undefined;
    let upstreamUrl = config.upstream.url;
    if (!upstreamUrl) {
      // The demo stores its `template:` files as iac-code stores artifacts, in a folder the gateway reads.
      const artifactDir = config.upstream['artifact-dir'] ?? join(config['persistence-dir'], 'demo-artifacts');
      config = { ...config, upstream: { ...config.upstream, 'artifact-dir': artifactDir } };
      const demo = await startDemoAgent({ artifactDir });
      cleanups.push(demo.close);
      upstreamUrl = demo.url;
      logger.info({ upstream: upstreamUrl }, 'no upstream configured: serving the embedded demo agent');
    }
    const tracing = await createTracing(config.tracing, logger, options.tracerProvider);
    cleanups.push(() => tracing.shutdown());
    const observability = createObservability(config, { tracing, ...(config.metrics.enabled ? { metrics: createGatewayMetrics() } : {}) });
    const connected = await connectUpstream(upstreamUrl, config.upstream, logger);
    const upstream = observability.upstream(connected.upstream);
    cleanups.push(() => upstream.close());
    const passThrough = passThroughWhenV025(connected, upstreamUrl, config.upstream);
    cleanups.push(() => passThrough.close());
    const agentRoutes = { url: upstreamUrl, dispatcher: createUpstreamPool(config.upstream) };
    cleanups.push(() => agentRoutes.dispatcher.close());

    const counted = (result: VerificationResult) => observability.metrics?.cardVerification(result.valid, result.valid ? undefined : result.reason);
    const verifying = verification && upstreamKeys ? verifiedCards(upstream, verification, upstreamKeys, logger, counted) : undefined;
    const cards = createCardRefresher(observability.cards(verifying ?? upstream), { intervalMs: config.upstream['card-refresh-ms'], logger });
    await cards.start();
    cleanups.push(async () => cards.stop());

    const registry = createTaskRegistry(config);
    cleanups.push(() => registry.close());
    const taskAliases = createTaskAliases(config);
    cleanups.push(() => taskAliases.close());
    const lanes = createContextLanesFor(config, logger);
    cleanups.push(() => lanes.close());

    const trusted = verifying && verification?.required ? onlyWhenVerified(upstream, verifying.verified) : upstream;
    const gateway = createGateway(trusted, {
      registry,
      lanes,
      upstreamName: upstreamUrl,
      logger,
    });
    const push = await createPushService(config, {
      registry,
      logger,
      profile: profile ?? loadMappingProfile('a2a-0.2.5'),
      ...(observability.metrics ? { metrics: observability.metrics } : {}),
    });
    const port = observability.port(withArtifactContent(push.decorate(gateway), config, logger));
    push.start();
    cleanups.push(() => push.stop());
    const shutdown = new AbortController();
    // Every in-flight call listens for shutdown (and detaches when done): many listeners are the design.
    setMaxListeners(0, shutdown.signal);
    let httpUrl = '';
    // Loaded only when on: grpc-js is not needed by a gateway without the binding.
    const grpc =
      config.grpc.port === undefined
        ? undefined
        : await (
            await import('./surfaces/grpc/server.js')
          ).startGrpcSurface({
            port,
            config,
            logger,
            shutdown: shutdown.signal,
            baseUrl: () => config['public-url']?.replace(/\/+$/, '') ?? httpUrl,
          });
    const drainMs = config['drain-timeout-ms'];
    const interrupt = (): void => {
      logger.warn({ drainMs }, 'drain time is over: ending the open requests and streams');
      shutdown.abort(A2AError.internal(SHUTTING_DOWN_MESSAGE));
    };
    if (grpc) {
      cleanups.push(() => grpc.drain({ drainMs, interrupt }));
      logger.info({ grpcPort: grpc.port }, 'gRPC binding listening');
    }
    // With grpc.port 0 the cards must advertise the port it got.
    const served = grpc?.config ?? config;
    const app = createGatewayApp({
      config: served,
      port,
      cards,
      registry,
      taskAliases,
      logger,
      shutdown: shutdown.signal,
      passThrough,
      ...(signer ? { signer } : {}),
      agentRoutes,
      observability,
      ...(profile ? { profile } : {}),
    });
    const closeMetrics = await observability.listen(config.host);
    if (closeMetrics) cleanups.push(closeMetrics);

    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const listen = { fetch: withDirectSse(app.fetch), hostname: config.host, port: config.port };
      const options = serverOptions(config.server);
      const s = serve(
        tls ? { ...listen, createServer: createHttpsServer, serverOptions: { ...options, ...tls } } : { ...listen, serverOptions: options },
        () => resolve(s),
      );
      s.once('error', (error) => reject(listenError(error, config.host, config.port)));
    });
    const perClient = config.server['max-connections-per-client'];
    if (!config['trust-proxy'] && perClient > 0) capConnectionsPerPeer(server as Server, perClient);
    const http = drainable(server as Server);
    // Both bindings drain at once (one after the other would double the shutdown time); a drain runs once.
    cleanups.push(async () => {
      await Promise.all([http.drain({ drainMs, interrupt }), grpc?.drain({ drainMs, interrupt })]);
    });
    if (tls) {
      const stopReloading = reloadTlsOnChange(server as HttpsServer, config.tls, logger, options.tlsReloadMs);
      cleanups.push(async () => stopReloading());
    }
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    httpUrl = `${tls ? 'https' : 'http'}://${host}:${address.port}`;
    return { url: httpUrl, ...(grpc ? { grpcAddress: `${host}:${grpc.port}` } : {}), close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

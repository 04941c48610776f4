import type { ConversationLanguages } from './surfaces/v025/notes/conversation-languages.js';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/schema.js';
import type { AgentPort } from './core/agent-port.js';
import type { CardSource } from './core/card-source.js';
import type { TurnLetGo } from './core/gateway.js';
import type { TurnLimits } from './core/turn-limits.js';
import { createMemoryTaskAliases, type TaskAliases } from './core/task-aliases/index.js';
import type { TaskRegistry } from './core/task-registry/types.js';
import { referenceScope } from './core/task-scope.js';
import { capRequestsPerForwardedClient } from './client-limits.js';
import type { MappingProfile } from './mappings/index.js';
import { loadFacadeProfile } from './start/checks.js';
import { requestLogger } from './log.js';
import type { Observability } from './observability/index.js';
import type { CardSigner } from './signing/card-signer.js';
import { facadeOptions, unknownTasksFor, v1SurfaceOptions } from './surface-options.js';
import { refusalInCallersProtocol } from './surfaces/caller-refusal.js';
import { mountHealth } from './surfaces/health.js';
import { mountJwks } from './surfaces/jwks.js';
import { admitsCaller, authEnabled, presentsAnyCredential, requireCredentials } from './surfaces/shared/auth.js';
import { finishBodyRefusals } from './surfaces/shared/body-refusal.js';
import type { GatewayEnv } from './surfaces/shared/env.js';
import { guardedDialect } from './surfaces/shared/guarded-dialect.js';
import { jsonRpcEndpoint } from './surfaces/shared/jsonrpc-endpoint.js';
import type { JsonRpcDialect } from './surfaces/shared/jsonrpc.js';
import { pathGuard } from './surfaces/shared/path-guard.js';
import { nonErrorsToErrorHandler, unexpectedFailureHandler, type UnexpectedFailureRoutes } from './surfaces/shared/unexpected-failure.js';
import { createV1Dialect, mountV1Surface, type AgentRoutesUpstream } from './surfaces/v1/index.js';
import { endpointPaths, facadeBasePath, mountV025Facade, v025ErrorAnswer, type FacadePassThrough } from './surfaces/v025/index.js';
import { underBase } from './surfaces/v025/deps.js';
import { AGENT_CARD_PATH, AGENT_OWN_ROUTES, HEALTH_PATH, READY_PATH, otherMethodsRefused } from './gateway-routes.js';
import { JWKS_PATH } from './signing/card-signer.js';
import { facadeMethodsElsewhere } from './surfaces/v025/served-elsewhere.js';
import { facadeKeyAlone, facadeKeyInSharedHeader } from './surfaces/v025/auth.js';
import { V1_JSONRPC_PATH } from './surfaces/shared/v1-methods-elsewhere.js';
import { pushedTaskRenderer } from './surfaces/v025/tasks/pushed-task.js';
import type { V025TaskRenderer } from './push/v025-body.js';
import { withFields } from './model/index.js';
import { pipelineStateReader } from './upstream/iac-code/pipeline-state.js';

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
  /** The language each facade conversation's caller last wrote in; default: this process's memory. */
  languages?: ConversationLanguages;
  /** Signs the 1.0 cards and publishes the public keys (config `signing.keys`). */
  signer?: CardSigner;
  /** Where the agent's own routes (iac-code's readiness and pipeline state) are forwarded to. */
  agentRoutes?: AgentRoutesUpstream;
  /** Metrics (and their route) and tracing; absent: none. */
  observability?: Observability;
  /** The cap on each client's turns in flight, for the turns the facade relays past the core; absent: none. */
  turnLimits?: TurnLimits;
  /** The core's wait for a context's turn to be let go, on any replica (core/gateway.ts); absent: not waited for. */
  turnLetGo?: TurnLetGo;
  /** Handed the facade's rendering of a pushed 0.2.5 Task when the facade is mounted (push makes 0.2.5 bodies with it). */
  takeV025Renderer?: (render: V025TaskRenderer) => void;
}

/** What a caller with the Bailian facade's key is told of a 1.0 method on `POST /` (docs/surfaces.md). */
const V1_SERVED_AS =
  "an A2A 1.0 method, which takes the gateway's A2A 1.0 credentials (auth.*), not the Bailian facade's key given here; " +
  'the facade (X-API-KEY) serves message/send and message/stream';

/** The whole HTTP surface: health, the 0.2.5 facade, the 1.0 surface and the JSON-RPC endpoint. */
export function createGatewayApp(deps: GatewayAppDeps): Hono<GatewayEnv> {
  const { config, port, cards, registry, logger, shutdown, signer } = deps;
  const app = new Hono<GatewayEnv>();
  app.use('*', requestLogger(logger));
  app.use('*', finishBodyRefusals());
  app.use('*', nonErrorsToErrorHandler());
  app.use('*', pathGuard());
  const facadeProfile = config.bailian.enabled ? (deps.profile ?? loadFacadeProfile(config)) : undefined;
  const perClient = config.server['max-connections-per-client'];
  // Without a trusted proxy the peer is the client, and startGateway caps its connections instead.
  if (config['trust-proxy'] && perClient > 0) {
    const refuse = refusalInCallersProtocol({ maxBodyBytes: config['max-body-bytes'], facadeProfile });
    app.use('*', capRequestsPerForwardedClient(perClient, refuse));
  }
  deps.observability?.mount(app, shutdown);
  mountHealth(app, cards, () => registry.reachable?.() ?? true);
  // Open like the health routes: a client checks the card's signature before it has credentials.
  if (signer) mountJwks(app, signer);
  // The routes that are read: another method is wrong whoever asks, not the 1.0 surface's 401 or the app's 404.
  const readOnly = [HEALTH_PATH, READY_PATH, AGENT_CARD_PATH, ...(signer ? [JWKS_PATH] : []), ...(deps.agentRoutes ? AGENT_OWN_ROUTES : [])];
  for (const path of readOnly) app.all(path, otherMethodsRefused(['GET', 'HEAD']));

  const v1Deps = { port, cards, options: v1SurfaceOptions(config), shutdown, signer };
  const v1Auth = requireCredentials(config.auth);
  const v1 = new Hono<GatewayEnv>();
  v1.use('*', v1Auth);
  const agentRouteScope = referenceScope(registry, unknownTasksFor(config));
  mountV1Surface(v1, withFields(v1Deps, deps.agentRoutes ? { agentRoutes: deps.agentRoutes, agentRouteScope } : {}));

  // Before the 1.0 surface: its catch-all auth middleware must not guard the facade's routes.
  const facadeDeps = facadeProfile
    ? {
        port,
        cards,
        options: facadeOptions(config),
        registry,
        shutdown,
        profile: facadeProfile,
        passThrough: deps.passThrough,
        taskAliases: deps.taskAliases ?? createMemoryTaskAliases({ max: config.tasks['max-tasks'], idleTtlMs: config.tasks['idle-ttl-ms'] }),
        ...(deps.languages ? { languages: deps.languages } : {}),
        ...(deps.turnLimits ? { turnLimits: deps.turnLimits } : {}),
        ...(deps.turnLetGo ? { turnLetGo: deps.turnLetGo } : {}),
        // The calls it relays to a 0.2.5/0.3 agent pass the metered upstream by: the facade meters them itself.
        ...(deps.observability?.metrics ? { metrics: deps.observability.metrics } : {}),
        // Through the same connection, credentials and bound as the agent's own routes the 1.0 surface serves.
        ...(deps.agentRoutes ? { pipelineState: pipelineStateReader(deps.agentRoutes) } : {}),
      }
    : undefined;
  const facade = facadeDeps ? mountV025Facade(app, facadeDeps, config.auth) : undefined;
  // A pushed 0.2.5 Task is what tasks/get answers: the facade's own reading of the task.
  if (facadeDeps) deps.takeV025Renderer?.(pushedTaskRenderer(facadeDeps, logger));

  const v1Dialect = guardedDialect(createV1Dialect(v1Deps), v1Auth, (headers) => admitsCaller(headers, config.auth), {
    servedAs: V1_SERVED_AS,
    presents: (headers) => authEnabled(config.auth) && admitsCaller(headers, config.auth),
    meantBy: (request) =>
      presentsAnyCredential(request.headers, config.auth) &&
      !facadeKeyInSharedHeader(request, config.auth['api-key-header'], config['lenient-version'])
        ? 'jsonrpc'
        : undefined,
    // The facade's key alone in the X-API-KEY header both read is none of 1.0's: told whose method it called.
    sentNone: (headers) => !presentsAnyCredential(headers, config.auth) || facadeKeyAlone(headers, config.auth, config.bailian),
  });
  const dialects: JsonRpcDialect[] = [v1Dialect];
  if (facade) dialects.push(facade);
  // A facade under a base path of its own is not on `POST /`: its callers who post here are told where it is.
  const facadeBase = facadeBasePath(config.bailian);
  const facadeElsewhere = facadeProfile && facadeBase !== V1_JSONRPC_PATH ? [facadeMethodsElsewhere(facadeBase, facadeProfile)] : [];
  app.post(V1_JSONRPC_PATH, jsonRpcEndpoint(dialects, { maxBodyBytes: config['max-body-bytes'], servedElsewhere: facadeElsewhere }));
  // Before the 1.0 surface's gate, as the facade's endpoints: GET / is wrong whoever asks, not a 401 or a 404.
  app.all(V1_JSONRPC_PATH, otherMethodsRefused(['POST']));
  app.route('/', v1);

  app.notFound((c) => c.json({ error: 'Not Found' }, 404));
  app.onError(unexpectedFailureHandler(failureRoutes(config, facadeProfile)));
  return app;
}

/** Where the app's JSON-RPC endpoints are, for the answer to a failure nothing else caught. */
function failureRoutes(config: GatewayConfig, facadeProfile: MappingProfile | undefined): UnexpectedFailureRoutes {
  if (!facadeProfile) return { jsonRpcPaths: new Set(['/']) };
  const base = facadeBasePath(config.bailian);
  const streamPaths = new Set(endpointPaths(underBase(base, '/stream')));
  // With base `/`, `POST /` is shared with 1.0: only the facade's dialect (noted on the log line) tells its callers apart there.
  const paths = new Set([...streamPaths, ...(base === '/' ? [] : endpointPaths(base))]);
  return {
    jsonRpcPaths: new Set(['/', ...paths]),
    facade: { paths, streamPaths, answer: (id, method, error) => v025ErrorAnswer(id, method, error, facadeProfile) },
  };
}

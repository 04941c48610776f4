import type { BailianConfig } from '../../config/bailian-schema.js';
import type { ExtensionConfig } from '../../config/schema.js';
import type { AgentPort } from '../../core/agent-port.js';
import type { CardSource } from '../../core/card-source.js';
import type { TurnLetGo } from '../../core/gateway.js';
import type { TurnLimits } from '../../core/turn-limits.js';
import type { TaskAliases } from '../../core/task-aliases/index.js';
import type { TaskRegistry } from '../../core/task-registry/types.js';
import type { UnknownTasks } from '../../core/task-scope.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { PipelineStateReader } from '../../upstream/iac-code/pipeline-state.js';
import type { RelayWatch } from '../../upstream/v025/passthrough.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { V025AgentCard } from '../../protocol/v025/index.js';
import type { CallOptions } from '../shared/call-pipeline.js';
import type { ConversationLanguages } from './notes/conversation-languages.js';
import type { ImageFetchSlots } from './turn/image-urls.js';
import { publicBaseUrl, type PublicUrlConfig } from '../shared/public-url.js';

/** A 0.2.5/0.3 agent's own JSON-RPC endpoint, reached without translation (src/upstream/v025/passthrough.ts). */
export interface V025Relay {
  /** The agent's own card, fetched now. */
  card(signal?: AbortSignal): Promise<V025AgentCard>;
  /**
   * The caller's JSON-RPC request relayed; the agent's answer comes back byte for byte (SSE included). An agent out
   * of reach is thrown (an A2AError); `watch` hears of a stream the relay cut itself.
   */
  forward(request: Request, body: string, watch?: RelayWatch): Promise<Response>;
}

/**
 * Whether the facade relays instead of translating, decided per call: the upstream's protocol may
 * only become known after start (an agent that was down then).
 */
export interface FacadePassThrough {
  /** The relay for a 0.2.5/0.3 upstream, undefined for a 1.0 one; waits for protocol detection (throws when it fails). */
  resolve(signal: () => AbortSignal): Promise<V025Relay | undefined>;
  /** The same without waiting: undefined also while the protocol is unknown. */
  current(): V025Relay | undefined;
}

/** What the 0.2.5 facade reads of the config. */
export interface V025FacadeOptions extends CallOptions {
  /** The facade's own section (`bailian`): key, card overrides, message and reply rules. */
  bailian: BailianConfig;
  /** `bailian.base-path` as facadeBasePath gives it. */
  basePath: string;
  /** How callers reach the gateway (`public-url`, `trust-proxy`): the URL the facade card names. */
  publicUrl: PublicUrlConfig;
  /** `push-notifications`. */
  pushNotifications: boolean;
  /** `push-allow-private`: the callback URL rules for the configs the facade relays to a 0.2.5 agent (relayed-push-configs.ts). */
  pushAllowPrivate?: boolean;
  /** The gateway's own extensions (`extensions`), listed on the facade card. */
  extensions: ExtensionConfig[];
  /** Gateway auth (`auth`) is on: the extended card is then offered only behind the facade's own key. */
  gatewayAuth: boolean;
  /** `upstream.request-timeout-ms`: the bound of a streamed message/send. */
  requestTimeoutMs: number;
  /** What a task the registry does not know is (task-scope.ts), for the calls the facade relays past the core. */
  unknownTasks: UnknownTasks;
  /** The upstream a relayed task is recorded under (`upstream.url`). */
  upstreamName: string;
  /** `lenient-version`: a 1.0 call on the `POST /` the facade shares may send no A2A-Version (absent: false). */
  lenientVersion?: boolean;
}

/** What the 0.2.5 facade needs: the core's port, the upstream card, the registry (for follow-ups) and the profile loaded at start. */
export interface V025FacadeDeps {
  port: AgentPort;
  cards: CardSource;
  options: V025FacadeOptions;
  registry: TaskRegistry;
  /** Task ids callers chose themselves. */
  taskAliases: TaskAliases;
  /** The language each conversation's caller last wrote in (conversation-languages.ts); default: this process's memory. */
  languages?: ConversationLanguages;
  profile: MappingProfile;
  /** Aborted (reason: the error to report) when the gateway shuts down: open calls and streams end with it. */
  shutdown?: AbortSignal;
  /** Present when a 0.2.5/0.3 upstream is to be relayed as is (no 0.2.5 → 1.0 → 0.2.5 round trip). */
  passThrough?: FacadePassThrough;
  /** Bound of the URL image fetches running at once (image-urls.ts); absent: none. */
  imageSlots?: ImageFetchSlots;
  /** The cap on each client's turns in flight, for the message sends relayed past the core (the core caps the rest); absent: none. */
  turnLimits?: TurnLimits;
  /**
   * The core's wait for the caller's turn on a context to be let go, on any replica sharing its lanes
   * (core/gateway.ts): a conversation's next message waits for the turn another replica is letting go
   * (continuation.ts previousEnded); absent: only turns running in this process are waited for.
   */
  turnLetGo?: TurnLetGo;
  /** The gateway's metrics, for the calls the facade relays past the core (and so past the metered upstream); absent: none. */
  metrics?: GatewayMetrics;
  /**
   * iac-code's journal of pipeline envelopes (its pipeline state route), read with the gateway's upstream
   * credentials when a broken stream's recovery cannot tell what a pipeline turn said; absent: not asked.
   */
  pipelineState?: PipelineStateReader;
}

/** `path` under the facade's base path (`/stream` → `/bailian/stream`; at `/` unchanged). */
export function underBase(base: string, path: string): string {
  return base === '/' ? path : `${base}${path}`;
}

/**
 * The facade's endpoint as its card advertises it: public base URL + base path, never with a
 * trailing slash, because Bailian appends `/stream` to it.
 */
export function facadeUrl(request: Request, options: Pick<V025FacadeOptions, 'basePath' | 'publicUrl'>): string {
  const base = options.basePath;
  return `${publicBaseUrl(request, options.publicUrl)}${base === '/' ? '' : base}`;
}

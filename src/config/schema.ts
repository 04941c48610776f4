import { z } from 'zod';

/** Credentials: used both for callers of the gateway (`auth`) and for the gateway calling upstream (`upstream.auth`). */
export const Credentials = z
  .strictObject({
    token: z.string().min(1).optional(),
    'basic-username': z.string().min(1).optional(),
    'basic-password': z.string().min(1).optional(),
    'api-key': z.string().min(1).optional(),
    'api-key-header': z.string().min(1).default('X-API-Key'),
  })
  .prefault({});
export type Credentials = z.infer<typeof Credentials>;

const Millis = z.number().int().min(0);
const Url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const UpstreamConfig = z
  .strictObject({
    /** Absent: the embedded demo agent is started and used as upstream. */
    url: Url.optional(),
    protocol: z.enum(['auto', '1.0', '0.3', '0.2.5']).default('auto'),
    auth: Credentials,
    'connect-timeout-ms': Millis.default(5_000),
    /** Time to response headers; a stream's body may then stay quiet for as long as it likes. */
    'headers-timeout-ms': Millis.default(60_000),
    /** Whole-call bound for blocking (non-stream) calls; 0 disables. */
    'request-timeout-ms': Millis.default(600_000),
    'card-refresh-ms': Millis.default(60_000),
    /**
     * Cap on pooled connections to the upstream; absent or 0: unlimited. Every open stream holds one
     * connection for its whole life, so a cap also caps concurrent streams (the rest wait, unbounded).
     */
    connections: z.number().int().min(0).optional(),
    /**
     * The folder where the upstream iac-code stores its artifacts, shared with the gateway (a sidecar
     * volume): its `iac-code-artifact://` files are read from here and shown to callers that cannot fetch them.
     */
    'artifact-dir': z.string().min(1).optional(),
    /** With `artifact-dir`: 1.0 callers get the artifacts' bytes (`raw`) instead of the opaque URL too. */
    'inline-artifacts': z.boolean().default(false),
  })
  .prefault({});
export type UpstreamConfig = z.infer<typeof UpstreamConfig>;

const SkillOverride = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string()).min(1),
  examples: z.array(z.string()).optional(),
});

export const BailianConfig = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** Where the 0.2.5 facade lives: `/` shares the JSON-RPC endpoint with the 1.0 surface. */
    'base-path': z.string().regex(/^\/[A-Za-z0-9._~\/-]*$/, 'must be a path starting with /').default('/'),
    'api-key': z.string().min(1).optional(),
    /** Mapping profile in mappings/profiles (bailian or a2a-0.2.5). */
    profile: z.string().default('bailian'),
    /** Per-entry overrides of the profile's tables, e.g. `states-to-v025: {TASK_STATE_INPUT_REQUIRED: input-required}`. */
    mappings: z.record(z.string(), z.record(z.string(), z.union([z.string(), z.number()]))).default({}),
    /** What happens to metadata.iac_code tool/usage/thinking details on the facade: pass them in event metadata, or drop them. */
    'upstream-metadata': z.enum(['pass', 'drop']).default('drop'),
    /** Non-text parts from a 0.2.5 caller: a -32005 error, or a failed task. */
    'non-text-parts': z.enum(['error', 'fail-task', 'forward']).default('error'),
    /** Bailian's protocol/intent extension fields of message.metadata are forwarded upstream under this key. */
    'extension-metadata-key': z.string().min(1).default('bailian'),
    /** How file, data and URL parts reach the caller: as text (the profile's default for Bailian) or as they are. Absent: the profile decides. */
    'render-parts': z.enum(['text', 'native']).optional(),
    /** Largest file shown inline as text; larger ones become a one-line description. */
    'inline-max-bytes': z.number().int().min(0).default(256 * 1024),
    card: z
      .strictObject({
        name: z.string().min(1).optional(),
        description: z.string().min(1).optional(),
        version: z.string().min(1).optional(),
        skills: z.array(SkillOverride).min(1).optional(),
      })
      .prefault({}),
  })
  .prefault({});
export type BailianConfig = z.infer<typeof BailianConfig>;

export const GatewayConfig = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(8080),
  /** The base URL callers use to reach the gateway; cards advertise it. */
  'public-url': Url.optional(),
  /** Honour X-Forwarded-Proto/Host when building public URLs (only behind a trusted proxy). */
  'trust-proxy': z.boolean().default(false),
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  upstream: UpstreamConfig,
  /** Credentials callers must present on every A2A route (any one configured scheme is enough). */
  auth: Credentials,
  'keepalive-ms': Millis.default(15_000),
  'max-body-bytes': z.number().int().min(1024).default(8 * 1024 * 1024),
  /**
   * Add the 0.3 top-level fields (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`)
   * to the public 1.0 card, for 0.3 clients that read it; off, the card is a clean 1.0 AgentCard.
   */
  'card-legacy-fields': z.boolean().default(false),
  /** Accept 1.0 requests without an A2A-Version header (strict 1.0 servers answer -32009). */
  'lenient-version': z.boolean().default(false),
  'drain-timeout-ms': Millis.default(10_000),
  bailian: BailianConfig,
  store: z.enum(['memory', 'redis']).default('memory'),
  'redis-url': z.string().default('redis://127.0.0.1:6379'),
  'redis-prefix': z.string().default('a2a-bridge:'),
  'persistence-dir': z.string().default('.a2a-bridge'),
  tasks: z
    .strictObject({
      'max-tasks': z.number().int().min(1).default(100_000),
      'idle-ttl-ms': Millis.default(24 * 3600_000),
      'history-limit': z.number().int().min(0).default(200),
      /** `store: redis`: how long a replica's hold on a context outlives its last renewal (a crashed replica's contexts free up after it). */
      'lane-lease-ms': z.number().int().min(1_000).default(30_000),
    })
    .prefault({}),
  'push-notifications': z.boolean().default(false),
  'push-queue': z.enum(['local-file', 'redis-streams']).default('local-file'),
  /** Which task events are delivered: status changes into a terminal or interrupted state, or every event. */
  'push-events': z.enum(['terminal', 'all']).default('terminal'),
  'push-allow-private': z.boolean().default(false),
  'push-max-configs-per-task': z.number().int().min(1).default(10),
  /** Key ring for push secrets at rest: `keyId:base64-32-byte-key` entries; the first one encrypts. */
  'push-keys': z.array(z.string()).default([]),
  'push-reveal-secrets': z.boolean().default(false),
  'push-redis-url': z.string().optional(),
  'push-stream': z.string().default('a2a-bridge:push'),
  'push-retry-key': z.string().default('a2a-bridge:push:retry'),
  'push-dead-stream': z.string().default('a2a-bridge:push:dead'),
  'push-consumer-group': z.string().default('a2a-bridge-push'),
  'push-consumer-name': z.string().optional(),
  'push-lease-timeout-ms': Millis.default(300_000),
  'push-max-attempts': z.number().int().min(1).default(5),
  'push-timeout-ms': Millis.default(5_000),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/** A fully defaulted config, for tests and embedding. */
export function defaultConfig(overrides: Record<string, unknown> = {}): GatewayConfig {
  return GatewayConfig.parse(overrides);
}

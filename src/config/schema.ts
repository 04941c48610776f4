import { z } from 'zod';
import { BailianConfig } from './bailian-schema.js';
import { CallerCredentials } from './credentials-schema.js';
import { LimitsConfig } from './limits-schema.js';
import { checkFacadeBasePath } from './facade-base-path.js';
import { checkRedisTls, RedisTls, RedisUrl } from './redis-schema.js';
import { TlsFiles } from './tls-files.js';
import { BaseUrl, HttpUrl } from './base-url.js';
import { KeptMillis, Millis } from './millis.js';
import { UpstreamConfig } from './upstream-schema.js';

/** Imported by most of the tree from here, with the rest of the configuration. */
export { UpstreamConfig };

/** The gRPC binding of the 1.0 surface, on a port of its own; off while `port` is absent. */
export const GrpcConfig = z
  .strictObject({
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65535).optional(),
    /** `host:port` the card advertises for the GRPC interface; default the bound host (or the public URL's host) and port. */
    'public-address': z
      .string()
      .regex(/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port')
      .optional(),
  })
  .prefault({});
export type GrpcConfig = z.infer<typeof GrpcConfig>;
/** One key of `signing.keys`: the first entry signs, every asymmetric one is published in the JWKS. */
export const SigningKeyConfig = z.strictObject({
  kid: z.string().min(1),
  alg: z.enum(['ES256', 'EdDSA', 'HS256']).optional(),
  /** PKCS#8 PEM or a JWK (JSON) file. */
  'private-key-file': z.string().min(1).optional(),
  /** The same, inline (e.g. `${CARD_KEY}`). */
  'private-key': z.string().min(1).optional(),
  /** SPKI PEM or a public JWK: a retired key that is still published, no longer signs. */
  'public-key-file': z.string().min(1).optional(),
  'public-key': z.string().min(1).optional(),
  /** HS256 shared secret (iac-code style); never published. */
  secret: z.string().min(1).optional(),
});
export type SigningKeyConfig = z.infer<typeof SigningKeyConfig>;

/** An A2A extension the gateway itself declares on its cards. */
export const ExtensionConfig = z.strictObject({
  uri: z.string().min(1),
  description: z.string().optional(),
  /** Callers must request it (A2A-Extensions) or a message send fails with -32008. */
  required: z.boolean().default(false),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type ExtensionConfig = z.infer<typeof ExtensionConfig>;

/** The gateway's own HTTP server: how long a client may take to send a request, and how many at once. */
export const ServerConfig = z
  .strictObject({
    /** Time a client has to send the request line and headers (a slow-header client is cut off with 408); 0 disables. */
    'headers-timeout-ms': Millis.default(10_000),
    /** Time a client has to send its whole request, body included (not the response: streams may last); 0 disables. */
    'request-timeout-ms': Millis.default(60_000),
    /**
     * Concurrent connections one client address may hold; 0: no cap. Without `trust-proxy` the
     * address is the TCP peer's and connections past the cap are closed at once; with it, the peer is
     * the proxy, so requests in flight are counted per `X-Forwarded-For` client instead (429 past the cap).
     */
    'max-connections-per-client': z.number().int().min(0).default(0),
  })
  .refine((server) => server['request-timeout-ms'] === 0 || server['headers-timeout-ms'] <= server['request-timeout-ms'], {
    message: 'headers-timeout-ms must not exceed request-timeout-ms',
    path: ['headers-timeout-ms'],
  })
  .prefault({});
export type ServerConfig = z.infer<typeof ServerConfig>;

const GatewayFields = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(8080),
  /** The base URL callers use to reach the gateway; cards advertise it. */
  'public-url': BaseUrl().optional(),
  /** Honour X-Forwarded-Proto/Host when building public URLs (only behind a trusted proxy). */
  'trust-proxy': z.boolean().default(false),
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: coloured lines for a person when stdout is a terminal, JSON lines otherwise. */
  'log-format': z.enum(['auto', 'pretty', 'json']).default('auto'),
  metrics: z
    .strictObject({
      /** Prometheus text at `path`. */
      enabled: z.boolean().default(true),
      path: z
        .string()
        .regex(/^\/[A-Za-z0-9._~/-]*$/, 'must be a path starting with /')
        .default('/metrics'),
      /** A separate port for the scrape (absent: the main port). */
      port: z.number().int().min(0).max(65535).optional(),
      /** A bearer token the scraper must send; absent: open, like the probes. */
      token: z.string().min(1).optional(),
    })
    .prefault({}),
  tracing: z
    .strictObject({
      /** OTLP/HTTP traces endpoint, e.g. http://otel-collector:4318/v1/traces; absent: no exporter (spans are no-ops). */
      'otlp-endpoint': HttpUrl.optional(),
      'service-name': z.string().min(1).default('a2a-bridge'),
    })
    .prefault({}),
  /** Native TLS on the main port: PEM files, re-read when they change on disk. */
  tls: TlsFiles('tls'),
  upstream: UpstreamConfig,
  server: ServerConfig,
  /** What one client may ask of the agent at once (limits-schema.ts). */
  limits: LimitsConfig,
  /** Credentials callers must present on every A2A route (any one configured credential is enough). */
  auth: CallerCredentials,
  'keepalive-ms': Millis.default(15_000),
  'max-body-bytes': z
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /**
   * Add the 0.3 top-level fields (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`)
   * to the public 1.0 card, for 0.3 clients that read it; off, the card is a clean 1.0 AgentCard.
   */
  'card-legacy-fields': z.boolean().default(false),
  /** Accept 1.0 requests without an A2A-Version header (strict 1.0 servers answer -32009). */
  'lenient-version': z.boolean().default(false),
  'drain-timeout-ms': Millis.default(10_000),
  bailian: BailianConfig,
  grpc: GrpcConfig,
  /** Keys that sign the gateway's own 1.0 cards; the public ones are served at /.well-known/jwks.json. */
  signing: z.strictObject({ keys: z.array(SigningKeyConfig).default([]) }).prefault({}),
  /** Extensions the gateway adds to its cards (after the upstream's). */
  extensions: z.array(ExtensionConfig).default([]),
  store: z.enum(['memory', 'redis']).default('memory'),
  /** `redis://`, `rediss://`, or through Sentinel `redis+sentinel://host:26379,host:26379/master-name` (redis/url.ts). */
  'redis-url': RedisUrl.default('redis://127.0.0.1:6379'),
  /** TLS files and settings for the rediss:// URLs (redis-schema.ts). */
  'redis-tls': RedisTls,
  'redis-prefix': z.string().default('a2a-bridge:'),
  /**
   * How long the task registry and the context lanes wait for Redis to answer a command before the call
   * that needed it fails (-32603): a Redis that froze, or a network that drops packets, answers nothing
   * and never closes the connection. 0: wait for ever.
   */
  'redis-command-timeout-ms': Millis.default(5_000),
  'persistence-dir': z.string().default('.a2a-bridge'),
  tasks: z
    .strictObject({
      'max-tasks': z.number().int().min(1).default(100_000),
      /** `store: memory`: heap the stored tasks may hold (estimated); absent: a quarter of the V8 heap limit. */
      'max-bytes': z.number().int().min(1).optional(),
      'idle-ttl-ms': KeptMillis.default(24 * 3600_000),
      'history-limit': z.number().int().min(0).default(200),
      /** A caller's raw part (a file, an image) past this many bytes is kept in history as a line naming it. */
      'history-part-max-bytes': z.number().int().min(0).default(65_536),
      /**
       * How long the gateway remembers who owns a context after its last task began, even once its tasks
       * are gone (never below `idle-ttl-ms`; with that at 0, forever): the agent may still hold the
       * conversation, and another caller naming it must not continue it.
       */
      'context-owner-ttl-ms': KeptMillis.default(7 * 24 * 3600_000),
      /**
       * `store: redis`: how long a replica's hold on a context, and on a turn's slot under its client's cap
       * (`limits.*`), outlives its last renewal (a crashed replica's contexts and slots free up after it).
       */
      'lane-lease-ms': z.number().int().min(1_000).default(30_000),
      /**
       * How long the agent must keep answering that it does not know a task the gateway recorded unfinished
       * before the gateway records it failed (core/lost-tasks.ts); until then the record answers as it is.
       */
      'lost-after-ms': Millis.default(30_000),
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
  'push-redis-url': RedisUrl.optional(),
  'push-stream': z.string().default('a2a-bridge:push'),
  'push-retry-key': z.string().default('a2a-bridge:push:retry'),
  'push-dead-stream': z.string().default('a2a-bridge:push:dead'),
  'push-consumer-group': z.string().default('a2a-bridge-push'),
  'push-consumer-name': z.string().optional(),
  'push-lease-timeout-ms': Millis.default(300_000),
  'push-max-attempts': z.number().int().min(1).default(10),
  'push-timeout-ms': Millis.default(5_000),
  /** How long a task answered while still running is followed upstream, so that its end is pushed; 0 follows none. */
  'push-follow-timeout-ms': Millis.default(3_600_000),
  /** Tasks followed at once per replica; each holds one upstream connection while its turn runs. */
  'push-follow-max': z.number().int().min(1).default(10_000),
  /** Of those, started by one caller at most (0: no cap but `push-follow-max`); unset: a quarter of `push-follow-max`. */
  'push-follow-max-per-owner': z.number().int().min(0).optional(),
  /** `store: redis`: how long a replica's follows stay its own after it last renewed its lease; a dead replica's are then taken over. */
  'push-follow-lease-ms': z.number().int().min(1_000).default(15_000),
});
/** Checked as a whole too: what `redis-tls` may say depends on the URLs beside it, where the facade may live on the routes beside it. */
export const GatewayConfig = GatewayFields.superRefine(checkRedisTls).superRefine(checkFacadeBasePath);
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/** A fully defaulted config, for tests and embedding. */
export function defaultConfig(overrides: Record<string, unknown> = {}): GatewayConfig {
  return GatewayConfig.parse(overrides);
}

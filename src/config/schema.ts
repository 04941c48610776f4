import { z } from 'zod';
import { BailianConfig } from './bailian-schema.js';
import { CallerCredentials, Credentials } from './credentials-schema.js';
import { LimitsConfig } from './limits-schema.js';
import { CardVerificationConfig } from './card-verification-schema.js';
import { checkFacadeBasePath } from './facade-base-path.js';
import { checkRedisTls, RedisTls, RedisUrl } from './redis-schema.js';
import { TlsFiles } from './tls-files.js';
import { BaseUrl, HttpUrl, UpstreamUrl } from './base-url.js';
import { MAX_TIMER_MS } from '../timed-signal.js';
import { checkWorkspacePrune, WorkspacePruneConfig } from './workspace-prune-schema.js';

/** A bound in ms: at most what a Node timer can wait (about 24.8 days); past it a timer fires at once. */
const Millis = z.number().int().min(0).max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days); 0 disables it`);
/** How long something is kept, in ms: compared with timestamps and given to Redis as expiry, never a timer, so not capped. */
const KeptMillis = z.number().int().min(0);

/** `https://host[:port]` (a trailing `/` allowed; `grpc://host:port` too): nothing a card's path could be matched against. */
const isOrigin = (url: string): boolean => {
  if (!URL.canParse(url)) return false; // the URL check failed already, and zod runs this one all the same
  const { hostname, pathname, search, hash, username, password } = new URL(url);
  return hostname !== '' && (pathname === '/' || pathname === '') && !search && !hash && !username && !password;
};

/** An origin a card may name: an HTTP interface's (`https://host[:port]`), or a gRPC address (`grpc://host:port`, `grpcs://` over TLS). */
const CardOrigin = z
  .url({ protocol: /^(https?|grpcs?)$/, error: 'must be an http(s) or grpc(s) URL' })
  .refine(isOrigin, 'must be an origin, scheme://host[:port], with no path');

export const UpstreamConfig = z
  .strictObject({
    /** Absent: the embedded demo agent is started and used as upstream. */
    url: UpstreamUrl.optional(),
    protocol: z.enum(['auto', '1.0', '0.3', '0.2.5']).default('auto'),
    auth: Credentials,
    'connect-timeout-ms': Millis.default(5_000),
    /** Time to response headers of every upstream call but a send, whose come with the turn's end (request-timeout-ms bounds a send). */
    'headers-timeout-ms': Millis.default(60_000),
    /**
     * How long a stream the agent accepted may stay quiet before its first event; on expiry the caller
     * gets an error event in its protocol and the stream closes. 0: no bound.
     */
    'first-event-timeout-ms': Millis.default(300_000),
    /**
     * How long a stream may then send nothing at all (an event, a comment such as sse-starlette's ping, a
     * gRPC message) before the call is ended as timed out: an agent that froze with its connection open.
     * 0: no bound.
     */
    'stream-idle-timeout-ms': Millis.default(600_000),
    /**
     * Whole-call bound for unary (non-stream) calls, a send's turn included; 0 disables: a send whose caller
     * left then runs until the agent answers or the gateway shuts down (other calls keep headers-timeout-ms).
     */
    'request-timeout-ms': Millis.default(600_000),
    'card-refresh-ms': Millis.default(60_000),
    /**
     * Cap on pooled connections to the upstream; absent or 0: unlimited. Every open stream holds one
     * connection for its whole life, so a cap also caps concurrent streams (the rest wait, queue-timeout-ms).
     */
    connections: z.number().int().min(0).optional(),
    /**
     * With `connections`: how long a call waits for one of them (connecting included) before it is refused as
     * unavailable (503, gRPC UNAVAILABLE, Retry-After), never sent to the agent. 0: it waits as long as its call lasts.
     */
    'queue-timeout-ms': Millis.default(10_000),
    /**
     * The folder where the upstream iac-code stores its artifacts, shared with the gateway (a sidecar
     * volume): its `iac-code-artifact://` files are read from here and shown to callers that cannot fetch them.
     */
    'artifact-dir': z.string().min(1).optional(),
    /** With `artifact-dir`: 1.0 callers get the artifacts' bytes (`raw`) instead of the opaque URL too. */
    'inline-artifacts': z.boolean().default(false),
    /**
     * A folder on iac-code's host under which every conversation gets a workspace of its own: each turn
     * names `<root>/ctx-<digest of its context id>` as iac-code's `cwd` (upstream/iac-code/workspaces.ts).
     */
    'workspace-root': z.string().regex(/^\//, 'must be an absolute path').optional(),
    /**
     * Removal of the folders below `workspace-root` nothing was written to for `idle-after-ms`; absent, its
     * defaults apply whenever `workspace-root` is set (workspace-prune-schema.ts). Refused without a root.
     */
    'workspace-prune': WorkspacePruneConfig.optional(),
    /**
     * The keys of `metadata.iac_code` callers may set on a turn (iac-code takes its model, LLM key and
     * headers, cloud credentials and run mode from there); every other is taken out before the turn
     * goes on (upstream/iac-code/caller-settings.ts). Absent: every key passes, as iac-code has it.
     */
    'caller-settings': z.array(z.string().min(1)).optional(),
    /**
     * How a 1.0 agent is called: `auto` follows its card (JSON-RPC when it lists it, else the first
     * of HTTP+JSON and gRPC in the card's order), or forced. The card itself is always read over HTTP.
     */
    'protocol-binding': z.enum(['auto', 'JSONRPC', 'HTTP+JSON', 'GRPC']).default('auto'),
    /** Reach the agent's HTTP server through this unix domain socket instead of TCP (`url` still names host and path). */
    'socket-path': z.string().min(1).optional(),
    /**
     * TLS towards the agent (HTTP and gRPC): `ca-file` is the CA its certificate is checked against
     * instead of the public roots (a private CA); `cert-file` and `key-file` are the gateway's client
     * certificate, for an agent that requires mutual TLS.
     */
    tls: TlsFiles('upstream.tls'),
    'card-verification': CardVerificationConfig.optional(),
    /**
     * Origins (`https://api.example.com`) besides `url`'s that the agent's card may send calls to. A card
     * interface on any other origin is called at `url`'s origin instead (its path kept), with a warning:
     * the card does not choose where upstream.auth's credentials go (upstream/card-address.ts). A GRPC
     * interface may use any port of `url`'s host; another host's address is listed as `grpc://host:port`
     * (`grpcs://` over TLS), else it is called at `url`'s host and the card's port. A card read over https
     * that names plaintext gRPC is called over TLS unless its address is listed here as `grpc://host:port`.
     */
    'card-origins': z.array(CardOrigin).default([]),
  })
  .superRefine(checkWorkspacePrune)
  .prefault({});
export type UpstreamConfig = z.infer<typeof UpstreamConfig>;

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

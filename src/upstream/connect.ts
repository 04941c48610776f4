import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../config/schema.js';
import type { CallContext, Upstream } from '../core/agent-port.js';
import { deferIterable } from '../core/iterables.js';
import { withFields, A2AError, type StreamResponse } from '../model/index.js';
import { detectUpstreamWithCard, type UpstreamBinding, type UpstreamProtocol } from './detect.js';
import { withAgentIdsMapped } from './agent-ids-mapped.js';
import { withFinishedTaskRefusals } from './finished-task-refusal.js';
import { createGrpcUpstream } from './v1/grpc-client.js';
import { createUpstreamPool } from './http.js';
import { createV025Upstream } from './v025/client.js';
import { createV03RestUpstream } from './v03/rest-client.js';
import { createV1Upstream, untilAborted } from './v1/client.js';
import { settlesWithin } from '../settles-within.js';
import type { WarningLogger } from '../throttled-warnings.js';
import { fromTransportError } from './upstream-errors.js';
import { failureCause } from './failure-cause.js';
import { withCallDeadline } from './first-call-deadline.js';

/**
 * How long connecting waits for the detection before it hands back the client that finishes it on
 * first use. An agent that refuses the connection fails the detection at once; one that takes it and
 * never answers (a hung sidecar) would hold the start for `headers-timeout-ms`, with /health refused
 * meanwhile. Past this wait the detection goes on in the background, as after a refused connection.
 */
export const DETECTION_START_WAIT_MS = 2_000;

export interface ConnectOptions {
  /** How long to wait for the detection (default DETECTION_START_WAIT_MS); it goes on in the background past that. */
  waitMs?: number;
}

export interface ConnectedUpstream {
  upstream: Upstream;
  /**
   * The upstream's protocol; undefined while it is not known yet (the agent was unreachable at start, or
   * had not answered within the wait, and has not been reached since). A getter: it changes once detected.
   */
  readonly protocol: UpstreamProtocol | undefined;
  /** How the gateway reaches it (HTTP+JSON for an agent without JSON-RPC, GRPC for a gRPC-only 1.0 agent); undefined like `protocol`. */
  readonly binding: UpstreamBinding | undefined;
  /**
   * The agent's one connection pool, capped at `upstream.connections`: every call of the gateway's to the agent goes
   * through it (iac-code's own routes and the 0.2.5 relay too), so the cap holds for all of them together. Closed by
   * `upstream.close()`, once its other users are done.
   */
  readonly dispatcher: Dispatcher;
}

/**
 * The client for a detected protocol and binding (JSON-RPC unless named), on the shared pool; with the card the
 * detection read, when it hands one (DetectedWithCard.card).
 */
export function upstreamFor(
  { protocol, binding = 'JSONRPC', card }: { protocol: UpstreamProtocol; binding?: UpstreamBinding; card?: unknown },
  baseUrl: string,
  config: UpstreamConfig,
  dispatcher: Dispatcher,
  logger?: WarningLogger,
): Upstream {
  // The card the detection read: the client's first call does not fetch it again.
  const extras = withFields(logger ? { logger } : {}, card === undefined ? {} : { card });
  if (protocol === '1.0' && binding === 'GRPC') return createGrpcUpstream({ baseUrl, config, dispatcher, ...extras });
  const v1Binding = binding === 'HTTP+JSON' ? 'HTTP+JSON' : 'JSONRPC';
  if (protocol === '1.0') return createV1Upstream({ baseUrl, config, dispatcher, binding: v1Binding, ...extras });
  // An older agent may name its tasks and contexts as 1.0 callers cannot: they see protocol ids (agent-ids-mapped.ts);
  // it refuses a message to a finished task in its own terms, which 1.0 callers read as 1.0 words them (finished-task-refusal.ts).
  const older =
    protocol === '0.3' && binding === 'HTTP+JSON'
      ? createV03RestUpstream({ baseUrl, config, dispatcher, ...extras })
      : createV025Upstream({ baseUrl, config, dialect: protocol, dispatcher, ...extras });
  return withAgentIdsMapped(withFinishedTaskRefusals(older));
}

/**
 * An Upstream whose protocol is found on first use: every call (and the card refresher's fetchCard)
 * waits for one shared detection; a failed detection fails that call and is retried by the next. A call
 * that waits for it has `requestTimeoutMs` from its start for the detection and itself together
 * (first-call-deadline.ts); once detected, calls go straight to the client.
 */
function detectingUpstream(
  build: () => Promise<Upstream>,
  requestTimeoutMs: number,
): {
  upstream: Upstream;
  ready(signal?: AbortSignal): Promise<Upstream>;
  current(): Upstream | undefined;
} {
  let resolved: Upstream | undefined;
  let inFlight: Promise<Upstream> | undefined;

  function ready(signal?: AbortSignal): Promise<Upstream> {
    if (resolved) return Promise.resolve(resolved);
    if (!inFlight) {
      inFlight = build()
        .then((upstream) => (resolved = upstream))
        .finally(() => {
          inFlight = undefined;
        });
      inFlight.catch(() => undefined);
    }
    return untilAborted(inFlight, signal).catch((error: unknown) => {
      throw fromTransportError(error);
    });
  }

  /** A unary call: the detection it waits for and the call itself within the one deadline. */
  async function call<T>(ctx: CallContext, run: (found: Upstream, ctx: CallContext) => Promise<T>): Promise<T> {
    if (resolved) return run(resolved, ctx);
    const deadline = withCallDeadline(ctx, requestTimeoutMs);
    try {
      return await run(await ready(deadline.ctx.signal), deadline.ctx);
    } finally {
      deadline.clear();
    }
  }

  // A stream is not bounded by request-timeout-ms once open (headers and idle bounds are its own): only the wait for the detection is.
  const afterDetection = (ctx: CallContext, open: (found: Upstream) => AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> =>
    deferIterable(async () => {
      const deadline = withCallDeadline(ctx, requestTimeoutMs);
      try {
        return open(await ready(deadline.ctx.signal));
      } finally {
        deadline.clear();
      }
    });

  const upstream: Upstream = {
    fetchCard: async (signal) => (await ready(signal)).fetchCard(signal),
    close: async () => resolved?.close(),
    sendMessage: (req, ctx) => call(ctx, (found, bounded) => found.sendMessage(req, bounded)),
    // Once detected, a stream is the client's own, without a generator around each of its events.
    sendStreamingMessage: (req, ctx) =>
      resolved?.sendStreamingMessage(req, ctx) ?? afterDetection(ctx, (found) => found.sendStreamingMessage(req, ctx)),
    getTask: (req, ctx) => call(ctx, (found, bounded) => found.getTask(req, bounded)),
    listTasks: (req, ctx) => call(ctx, (found, bounded) => found.listTasks(req, bounded)),
    cancelTask: (req, ctx) => call(ctx, (found, bounded) => found.cancelTask(req, bounded)),
    subscribeToTask: (req, ctx) => resolved?.subscribeToTask(req, ctx) ?? afterDetection(ctx, (found) => found.subscribeToTask(req, ctx)),
    createTaskPushNotificationConfig: (req, ctx) => call(ctx, (found, bounded) => found.createTaskPushNotificationConfig(req, bounded)),
    getTaskPushNotificationConfig: (req, ctx) => call(ctx, (found, bounded) => found.getTaskPushNotificationConfig(req, bounded)),
    listTaskPushNotificationConfigs: (req, ctx) => call(ctx, (found, bounded) => found.listTaskPushNotificationConfigs(req, bounded)),
    deleteTaskPushNotificationConfig: (req, ctx) => call(ctx, (found, bounded) => found.deleteTaskPushNotificationConfig(req, bounded)),
    getExtendedAgentCard: (ctx) => call(ctx, (found, bounded) => found.getExtendedAgentCard(bounded)),
  };
  return { upstream, ready, current: () => resolved };
}

/**
 * The client for the agent at `baseUrl`, in whatever protocol it speaks (`upstream.protocol`, or
 * detected from its card). An agent that is down at start does not stop the gateway, nor pin it to a
 * guessed protocol: detection is retried on each later call and card refresh until it succeeds. Nor
 * does one that does not answer hold it: past `waitMs` the client is handed back with the detection
 * still running, which the first calls and the card refresher then wait for (each within its own
 * bounds), exactly as they retry it after a refused connection. `close()` ends a detection in flight.
 */
export async function connectUpstream(
  baseUrl: string,
  config: UpstreamConfig,
  logger: Logger,
  options: ConnectOptions = {},
): Promise<ConnectedUpstream> {
  const dispatcher = createUpstreamPool(config, logger);
  // Closing aborts a detection in flight: the pool's close() waits for the requests it still has.
  const closing = new AbortController();
  let protocol: UpstreamProtocol | undefined;
  let binding: UpstreamBinding | undefined;
  let failures = 0;

  async function build(): Promise<Upstream> {
    let card: unknown;
    try {
      ({ protocol, binding, card } = await detectUpstreamWithCard(baseUrl, config, { dispatcher, signal: closing.signal }));
    } catch (error) {
      if (closing.signal.aborted) throw error;
      // Warn once; the retries that follow (every call and card refresh until it is up) are debug noise.
      // The operator's words (failure-cause.ts): a caller reads only the gateway's, the log what really failed.
      const reason = error instanceof A2AError ? failureCause(error).cause : error instanceof Error ? error.message : String(error);
      logger[failures++ === 0 ? 'warn' : 'debug'](
        { upstream: baseUrl, err: reason },
        'upstream protocol could not be detected; retrying on next use',
      );
      throw error;
    }
    logger.info({ upstream: baseUrl, protocol, binding, configured: config.protocol }, 'upstream protocol');
    return upstreamFor({ protocol, binding, card }, baseUrl, config, dispatcher, logger);
  }

  const detecting = detectingUpstream(build, config['request-timeout-ms']);
  const waitMs = options.waitMs ?? DETECTION_START_WAIT_MS;
  if (
    !(await settlesWithin(
      detecting.ready().catch(() => undefined),
      waitMs,
    ))
  ) {
    logger.warn({ upstream: baseUrl, waitMs }, 'upstream has not answered yet; its protocol is detected in the background');
  }
  const inner = detecting.current();
  const upstream: Upstream = withFields(inner ?? detecting.upstream, {
    async close() {
      closing.abort();
      await detecting.upstream.close();
      await dispatcher.close();
    },
  });
  return {
    upstream,
    dispatcher,
    get protocol() {
      return protocol;
    },
    get binding() {
      return binding;
    },
  };
}

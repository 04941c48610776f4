import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { checkedCertificateCredentials } from './checked-certificates.js';
import type { DrainOptions } from '../../http/drain.js';
import { SERVED_SERVICE } from './definition.js';
import type { GrpcSurfaceOptions } from './options.js';
import { refusedCallLines } from './refused-calls.js';
import { createGrpcService, type GrpcSurfaceDeps } from './service.js';
import { withFields } from '../../model/index.js';

export interface RunningGrpcSurface {
  /** The port actually bound (`grpc.port: 0` picks one). */
  port: number;
  /** Stops taking calls, lets open ones finish for `drainMs`, then interrupts and cuts the rest. */
  drain(options: DrainOptions): Promise<void>;
}

const DEFAULT_GRACE_MS = 1_000;

/** grpc-js's value for a message length without a limit. */
const UNBOUNDED = -1;

const bindTarget = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Plaintext, or TLS with the main port's certificate files, checked first (a bad pair stops the start
 * with the same message as on the HTTP port) and then watched every `reloadMs` (checked-certificates.ts),
 * so a renewed certificate reaches new connections without a restart, as on the HTTP port.
 */
async function credentialsFor(tls: GrpcSurfaceOptions['tls'], logger: Logger, reloadMs: number): Promise<ServerCredentials> {
  if (!tls) return ServerCredentials.createInsecure();
  return checkedCertificateCredentials(tls, logger, reloadMs);
}

/** Serves the gRPC binding on `options.host` and `options.listenPort`. */
export async function startGrpcSurface(deps: GrpcSurfaceDeps, tlsReloadMs = 5_000): Promise<RunningGrpcSurface> {
  const { options } = deps;
  const live: GrpcSurfaceDeps = { ...deps };
  const server = new Server({
    // A request as large as an HTTP binding takes (`max-body-bytes`); past it grpc-js refuses it before any handler
    // runs, which refusedCallLines logs and answers as the HTTP bindings do.
    'grpc.max_receive_message_length': options.maxBodyBytes,
    interceptors: [refusedCallLines(deps)],
    // Answers unbounded, as on the HTTP bindings: a task with large artifacts the agent already produced reaches
    // the caller rather than failing "Sent message larger than max" after its turn ran. Named, not left to grpc-js's
    // default (unbounded on a server today), so a change of that default cannot bring a limit in unseen.
    'grpc.max_send_message_length': UNBOUNDED,
    // HTTP/2 pings while a stream is quiet, as SSE keep-alive comments do: idle-connection reapers leave it alone.
    ...(options.keepaliveMs > 0 ? { 'grpc.keepalive_time_ms': options.keepaliveMs, 'grpc.keepalive_timeout_ms': 20_000 } : {}),
  });
  server.addService(SERVED_SERVICE, createGrpcService(live));
  const credentials = await credentialsFor(options.tls, deps.logger, tlsReloadMs);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(bindTarget(options.host, options.listenPort), credentials, (error, bound) => (error ? reject(error) : resolve(bound)));
  });

  // The extended card advertises the port actually bound (`grpc.port: 0`).
  live.options = withFields(options, { card: withFields(options.card, { grpc: withFields(options.card.grpc, { port }) }) });

  let drained: Promise<void> | undefined;
  return {
    port,
    drain({ drainMs, interrupt, graceMs = DEFAULT_GRACE_MS }) {
      drained ??= new Promise<void>((resolve) => {
        let finished = false;
        const timers: NodeJS.Timeout[] = [];
        server.tryShutdown(() => {
          finished = true;
          for (const timer of timers) clearTimeout(timer);
          resolve();
        });
        timers.push(
          setTimeout(() => {
            if (finished) return;
            interrupt();
            timers.push(
              setTimeout(() => {
                if (finished) return;
                server.forceShutdown();
                resolve();
              }, graceMs),
            );
          }, drainMs),
        );
      });
      return drained;
    },
  };
}
